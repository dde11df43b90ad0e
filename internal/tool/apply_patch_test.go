package tool

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// snapshot maps every path under dir to "dir" or the file's content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	if _, err := os.Stat(dir); err != nil {
		return out
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir():
			out[rel] = "dir"
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = "file:" + string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	if _, err := os.Stat(from); err != nil {
		return
	}
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestApplyPatchConformance runs the Codex apply_patch scenarios. Scenario
// 015 expects the operations before a failing one to stay applied; codeloop
// checks the whole patch first, so there the tree must stay unchanged.
func TestApplyPatchConformance(t *testing.T) {
	t.Parallel()
	root := filepath.Join("testdata", "apply-patch", "scenarios")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	failing := map[string]bool{"005": true, "006": true, "007": true, "008": true, "009": true, "012": true, "013": true, "015": true}
	count := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		count++
		name := e.Name()
		t.Run(name, func(t *testing.T) {
			sc := filepath.Join(root, name)
			dir := t.TempDir()
			copyTree(t, filepath.Join(sc, "input"), dir)
			before := snapshot(t, dir)
			patch := readFile(t, filepath.Join(sc, "patch.txt"))
			res, err := run(t, testEnv(t), "apply_patch", dir, map[string]any{"patchText": patch})
			after := snapshot(t, dir)
			want := snapshot(t, filepath.Join(sc, "expected"))
			if strings.HasPrefix(name, "015") {
				want = before
			}
			if !maps.Equal(after, want) {
				t.Errorf("tree after the patch:\n%v\nwant:\n%v", after, want)
			}
			if wantErr := failing[name[:3]]; (err != nil) != wantErr {
				t.Errorf("error %v, want an error: %v", err, wantErr)
			}
			if err == nil && !strings.HasPrefix(res.Output, "Success. Updated the following files:\n") {
				t.Errorf("output %q", res.Output)
			}
		})
	}
	if count != 23 {
		t.Errorf("%d scenarios, want 23", count)
	}
}

func TestApplyPatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		files   map[string]string
		patch   string
		want    map[string]string // files afterwards (only these are checked)
		gone    []string
		output  string
		errText string
	}{
		{
			name:  "heredoc wrapper",
			files: map[string]string{"a.txt": "one\n"},
			patch: "cat <<'EOF'\n*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+two\n*** End Patch\nEOF\n",
			want:  map[string]string{"a.txt": "two\n"}, output: "Success. Updated the following files:\nM a.txt",
		},
		{
			name:  "typographic punctuation in the file",
			files: map[string]string{"q.txt": "say “hello” – now\nend\n"},
			patch: "*** Begin Patch\n*** Update File: q.txt\n@@\n-say \"hello\" - now\n+say hi\n end\n*** End Patch",
			want:  map[string]string{"q.txt": "say hi\nend\n"},
		},
		{
			name:  "trailing spaces in the file",
			files: map[string]string{"s.txt": "a   \nb\n"},
			patch: "*** Begin Patch\n*** Update File: s.txt\n@@\n-a\n+A\n b\n*** End Patch",
			want:  map[string]string{"s.txt": "A\nb\n"},
		},
		{
			name:  "crlf file stays crlf",
			files: map[string]string{"w.txt": "one\r\ntwo\r\n"},
			patch: "*** Begin Patch\n*** Update File: w.txt\n@@\n one\n-two\n+2\n*** End Patch",
			want:  map[string]string{"w.txt": "one\r\n2\r\n"},
		},
		{
			name:  "@@ lines narrow down repeated code",
			files: map[string]string{"r.go": "func a() {\n\treturn 1\n}\nfunc b() {\n\treturn 1\n}\n"},
			patch: "*** Begin Patch\n*** Update File: r.go\n@@ func b() {\n-\treturn 1\n+\treturn 2\n*** End Patch",
			want:  map[string]string{"r.go": "func a() {\n\treturn 1\n}\nfunc b() {\n\treturn 2\n}\n"},
		},
		{
			name:  "addition after a context line",
			files: map[string]string{"c.txt": "head\nbody\n"},
			patch: "*** Begin Patch\n*** Update File: c.txt\n@@ head\n+inserted\n*** End Patch",
			want:  map[string]string{"c.txt": "head\ninserted\nbody\n"},
		},
		{
			name:  "add, update, move and delete",
			files: map[string]string{"m.txt": "x\n", "d.txt": "bye\n"},
			patch: "*** Begin Patch\n*** Add File: new/n.txt\n+n\n*** Update File: m.txt\n*** Move to: moved/m.txt\n@@\n-x\n+y\n*** Delete File: d.txt\n*** End Patch",
			want:  map[string]string{"new/n.txt": "n\n", "moved/m.txt": "y\n"}, gone: []string{"m.txt", "d.txt"},
			output: "Success. Updated the following files:\nA new/n.txt\nM moved/m.txt\nD d.txt",
		},
		{
			name:  "a failing hunk changes nothing",
			files: map[string]string{"keep.txt": "k\n", "u.txt": "u\n"},
			patch: "*** Begin Patch\n*** Add File: added.txt\n+a\n*** Delete File: keep.txt\n*** Update File: u.txt\n@@\n-not there\n+x\n*** End Patch",
			want:  map[string]string{"keep.txt": "k\n", "u.txt": "u\n"}, gone: []string{"added.txt"},
			errText: "cannot update u.txt: these lines were not found",
		},
		{
			name:    "missing end marker",
			files:   map[string]string{"a.txt": "a\n"},
			patch:   "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\n",
			want:    map[string]string{"a.txt": "a\n"},
			errText: "the last line must be",
		},
		{
			name:    "bad change line",
			files:   map[string]string{"a.txt": "a\n"},
			patch:   "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\nb\n*** End Patch",
			want:    map[string]string{"a.txt": "a\n"},
			errText: "is not a change line",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, tt.files)
			res, err := run(t, testEnv(t), "apply_patch", dir, map[string]any{"patchText": tt.patch})
			if tt.errText != "" {
				var pe *PatchError
				if !errors.As(err, &pe) || !strings.Contains(err.Error(), tt.errText) {
					t.Errorf("error %v, want a *PatchError containing %q", err, tt.errText)
				}
			} else if err != nil {
				t.Fatal(err)
			} else if tt.output != "" && res.Output != tt.output {
				t.Errorf("output %q, want %q", res.Output, tt.output)
			}
			for p, want := range tt.want {
				if got := readFile(t, filepath.Join(dir, p)); got != want {
					t.Errorf("%s = %q, want %q", p, got, want)
				}
			}
			for _, p := range tt.gone {
				if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
					t.Errorf("%s still exists", p)
				}
			}
		})
	}
}

func TestApplyPatchPermissions(t *testing.T) {
	t.Parallel()
	dir, outside := t.TempDir(), t.TempDir()
	writeFiles(t, dir, map[string]string{"a.txt": "a\n"})
	patch := "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\n*** Add File: " + filepath.Join(outside, "o.txt") + "\n+o\n*** End Patch"
	call, asker := newCall(t, "apply_patch", dir, map[string]any{"patchText": patch})
	res, err := toolByID(t, testEnv(t), "apply_patch").Run(context.Background(), call)
	if err != nil {
		t.Fatal(err)
	}
	perms := []string{}
	for _, r := range asker.asked {
		perms = append(perms, r.Permission)
	}
	if !slices.Equal(perms, []string{"external_directory", "edit"}) {
		t.Fatalf("asked %v", perms)
	}
	edit := asker.requests("edit")[0]
	if len(edit.Patterns) != 2 || !slices.Contains(edit.Patterns, "a.txt") {
		t.Errorf("edit patterns %v", edit.Patterns)
	}
	if d, _ := edit.Metadata["diff"].(string); !strings.Contains(d, "+b") || !strings.Contains(d, "+o") {
		t.Errorf("edit diff %q", d)
	}
	if files, _ := res.Metadata["files"].([]map[string]any); len(files) != 2 {
		t.Errorf("metadata files %v", res.Metadata["files"])
	}
}
