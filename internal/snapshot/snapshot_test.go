package snapshot

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/id"
)

// tree is a directory's files: content and mode by slash path. A symlink's
// content is its target and its mode has fs.ModeSymlink.
type tree map[string]fileState

type fileState struct {
	content string
	mode    fs.FileMode
}

func readTree(t *testing.T, root string) tree {
	t.Helper()
	out := tree{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		info, err := os.Lstat(path)
		if err != nil {
			return err
		}
		var c []byte
		if info.Mode()&fs.ModeSymlink != 0 {
			s, err := os.Readlink(path)
			if err != nil {
				return err
			}
			c = []byte(s)
		} else if c, err = os.ReadFile(path); err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = fileState{string(c), info.Mode() & (fs.ModePerm | fs.ModeSymlink)}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diffTrees(a, b tree) []string {
	var out []string
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func openStore(t *testing.T) *Store {
	t.Helper()
	s, err := Open(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func sh(t *testing.T, dir, script string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
}

// toolWrite does what codeloop's write tool does: BeforeChange, then the
// write.
func toolWrite(t *testing.T, s *Store, session, path, content string) {
	t.Helper()
	if err := s.BeforeChange(context.Background(), session, []string{path}); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRevertUnrevert runs steps that change files in the ways tools do, in
// a plain directory and in a git repository, then checks that reverting
// them restores the tree exactly and unreverting re-applies it exactly.
func TestRevertUnrevert(t *testing.T) {
	t.Parallel()
	steps := []struct {
		name string
		do   func(t *testing.T, s *Store, dir, cp string)
	}{
		{"edit", func(t *testing.T, s *Store, dir, _ string) {
			toolWrite(t, s, "ses_a", filepath.Join(dir, "src/main.go"), "package main // edited\n")
		}},
		{"write new", func(t *testing.T, s *Store, dir, _ string) {
			toolWrite(t, s, "ses_a", filepath.Join(dir, "src/new/added.txt"), "added\n")
		}},
		{"patch delete", func(t *testing.T, s *Store, dir, _ string) {
			p := filepath.Join(dir, "doc.md")
			if err := s.BeforeChange(context.Background(), "ses_a", []string{p}); err != nil {
				t.Fatal(err)
			}
			os.Remove(p)
		}},
		{"bash rm", func(t *testing.T, s *Store, dir, cp string) {
			if err := s.BeforeTool(context.Background(), cp); err != nil {
				t.Fatal(err)
			}
			sh(t, dir, "rm script.sh")
		}},
		{"bash mv", func(t *testing.T, s *Store, dir, cp string) {
			if err := s.BeforeTool(context.Background(), cp); err != nil {
				t.Fatal(err)
			}
			sh(t, dir, "mv data/a.bin data/b.bin && chmod 600 data/b.bin")
		}},
		{"bash create", func(t *testing.T, s *Store, dir, cp string) {
			if err := s.BeforeTool(context.Background(), cp); err != nil {
				t.Fatal(err)
			}
			sh(t, dir, "mkdir -p gen && printf 'x%.0s' 1 2 3 > gen/out.txt && ln -s ../doc.md gen/link && printf '\\000\\001' >> src/main.go")
		}},
	}
	for _, mode := range []struct {
		git, noWatch bool
	}{{false, false}, {true, false}, {false, true}, {true, true}} {
		git := mode.git
		name := map[bool]string{false: "plain", true: "git"}[git] + map[bool]string{false: "", true: "-nowatch"}[mode.noWatch]
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			sh(t, dir, "mkdir -p src data && printf 'package main\\n' > src/main.go && printf '# doc\\r\\n' > doc.md && "+
				"printf '#!/bin/sh\\necho hi\\n' > script.sh && chmod 755 script.sh && head -c 300000 /dev/urandom > data/a.bin")
			var gitBefore tree
			if git {
				sh(t, dir, "git init -q && git add -A && git -c user.email=a@b -c user.name=a commit -qm init")
				gitBefore = readTree(t, filepath.Join(dir, ".git"))
			}
			s, err := Open(Options{Dir: t.TempDir(), NoWatch: mode.noWatch})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			start := readTree(t, dir)
			var cps []string
			var states []tree
			for _, st := range steps {
				cp, err := s.Begin(ctx, dir, "ses_a", "msg_"+strings.ReplaceAll(st.name, " ", "_"))
				if err != nil {
					t.Fatal(err)
				}
				st.do(t, s, dir, cp)
				patch, err := s.Finish(ctx, cp)
				if err != nil {
					t.Fatal(err)
				}
				if len(patch.Files) == 0 {
					t.Fatalf("step %s: no files in its patch", st.name)
				}
				cps = append(cps, cp)
				states = append(states, readTree(t, dir))
			}
			end := readTree(t, dir)
			// Revert back to before each step, newest first, and unrevert.
			for i := len(steps) - 1; i >= 0; i-- {
				want := start
				if i > 0 {
					want = states[i-1]
				}
				r, err := s.Revert(ctx, "ses_a", cps[i:], false)
				if err != nil {
					t.Fatalf("revert to before %s: %v", steps[i].name, err)
				}
				if d := diffTrees(want, readTree(t, dir)); len(d) > 0 {
					t.Fatalf("revert to before %s: these differ: %v", steps[i].name, d)
				}
				if _, err := s.Unrevert(ctx, "ses_a", r.Checkpoint, false); err != nil {
					t.Fatal(err)
				}
				if d := diffTrees(end, readTree(t, dir)); len(d) > 0 {
					t.Fatalf("unrevert of %s: these differ: %v", steps[i].name, d)
				}
			}
			if git {
				if d := diffTrees(gitBefore, readTree(t, filepath.Join(dir, ".git"))); len(d) > 0 {
					t.Errorf(".git changed: %v", d)
				}
			}
			diffs, err := s.Diff(ctx, cps)
			if err != nil {
				t.Fatal(err)
			}
			var files []string
			for _, d := range diffs {
				files = append(files, strings.TrimPrefix(d.File, dir+"/")+":"+d.Status)
			}
			want := []string{"data/a.bin:deleted", "data/b.bin:added", "doc.md:deleted", "gen/link:added",
				"gen/out.txt:added", "script.sh:deleted", "src/main.go:modified", "src/new/added.txt:added"}
			if !slices.Equal(files, want) {
				t.Errorf("diff files %v, want %v", files, want)
			}
			if problems, err := s.Verify(ctx); err != nil || len(problems) > 0 {
				t.Errorf("verify: %v %v", problems, err)
			}
		})
	}
}

// TestRevertConflict checks that a file the user edited after the step is
// reported and not overwritten, and that force overwrites it.
func TestRevertConflict(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	os.WriteFile(a, []byte("one\n"), 0o644)
	os.WriteFile(b, []byte("bee\n"), 0o644)
	s := openStore(t)
	ctx := context.Background()
	cp, _ := s.Begin(ctx, dir, "ses_c", "msg_1")
	toolWrite(t, s, "ses_c", a, "two\n")
	toolWrite(t, s, "ses_c", b, "bee2\n")
	if _, err := s.Finish(ctx, cp); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(a, []byte("the user's edit\n"), 0o644)
	_, err := s.Revert(ctx, "ses_c", []string{cp}, false)
	var ce *ConflictError
	if !errors.As(err, &ce) || !slices.Equal(ce.Files, []string{a}) {
		t.Fatalf("revert error %v, want a conflict on %s", err, a)
	}
	if got, _ := os.ReadFile(a); string(got) != "the user's edit\n" {
		t.Errorf("a.txt = %q: the user's edit was overwritten", got)
	}
	if got, _ := os.ReadFile(b); string(got) != "bee2\n" {
		t.Errorf("b.txt = %q: a revert with conflicts changed a file", got)
	}
	if _, err := s.Revert(ctx, "ses_c", []string{cp}, true); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(a); string(got) != "one\n" {
		t.Errorf("forced revert left a.txt = %q", got)
	}
}

// TestGrowthByChangedBytes makes 1,000 one-line edits to a 1 MB file and
// checks that the store grows by about the changed chunks, not by copies.
func TestGrowthByChangedBytes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("1,000 steps")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "big.txt")
	var buf bytes.Buffer
	words := strings.Fields("func return if err nil the a value of to for range := string int ctx context error fmt Errorf path file store")
	rng := rand.New(rand.NewPCG(1, 2))
	for buf.Len() < 1<<20 {
		for range 3 + rng.IntN(9) {
			buf.WriteString(words[rng.IntN(len(words))] + " ")
		}
		buf.WriteString("\n")
	}
	content := buf.Bytes()
	os.WriteFile(path, content, 0o644)
	s := openStore(t)
	ctx := context.Background()
	base := s.Size()
	first := int64(0)
	lines := bytes.SplitAfter(content, []byte("\n"))
	for i := range 1000 {
		cp, _ := s.Begin(ctx, dir, "ses_g", "msg")
		n := (i * 7919) % len(lines)
		lines[n] = []byte("edited " + strings.Repeat("!", i%9) + "\n")
		toolWrite(t, s, "ses_g", path, string(bytes.Join(lines, nil)))
		if _, err := s.Finish(ctx, cp); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = s.Size() - base
		}
	}
	grown := s.Size() - base - first
	t.Logf("first step %d bytes, next 999 steps %d bytes (%.1f KB a step); checkpoints kept %d",
		first, grown, float64(grown)/999/1024, s.Stats().Checkpoints)
	// One compressed copy of the file is about 'first'/2; 999 copies
	// would be hundreds of times that. Each step changes one line: one or
	// two chunks of ~8 KiB and a chunk list, well under 40 KB compressed.
	if copy := first / 2; grown > 999*copy/10 {
		t.Errorf("the store grew %d bytes over 999 one-line edits: more than the changed chunks", grown)
	}
}

// TestEditBetweenSteps changes files outside any step (the user, in an
// editor) and then lets a shell step change them again: reverting the step
// brings back the user's version, not the one before it, whether the scan
// walks the tree or asks the watcher.
func TestEditBetweenSteps(t *testing.T) {
	t.Parallel()
	for _, noWatch := range []bool{false, true} {
		dir := t.TempDir()
		sh(t, dir, "mkdir -p pkg && printf 'v1\\n' > pkg/a.txt && printf 'keep\\n' > b.txt")
		s, err := Open(Options{Dir: t.TempDir(), NoWatch: noWatch})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		step := func(script string) string {
			cp, _ := s.Begin(ctx, dir, "ses_u", "msg")
			if err := s.BeforeTool(ctx, cp); err != nil {
				t.Fatal(err)
			}
			sh(t, dir, script)
			if _, err := s.Finish(ctx, cp); err != nil {
				t.Fatal(err)
			}
			return cp
		}
		step("printf 'v2\\n' > pkg/a.txt")
		// The user edits a file and adds one in a new directory.
		sh(t, dir, "printf 'by the user\\n' > pkg/a.txt && mkdir -p new/deep && printf 'mine\\n' > new/deep/c.txt")
		cp := step("printf 'v3\\n' > pkg/a.txt && rm new/deep/c.txt && rm b.txt")
		if _, err := s.Revert(ctx, "ses_u", []string{cp}, false); err != nil {
			t.Fatalf("noWatch=%v: %v", noWatch, err)
		}
		// The first step's Begin also starts a scan in the background,
		// which the watcher serves when the step's own scan came first.
		if full, inc := s.walks.full.Load(), s.walks.incremental.Load(); !noWatch && (full != 1 || inc < 3) {
			t.Errorf("%d full and %d incremental scans, want the first full and the others from the watcher", full, inc)
		}
		for path, want := range map[string]string{"pkg/a.txt": "by the user\n", "new/deep/c.txt": "mine\n", "b.txt": "keep\n"} {
			if b, err := os.ReadFile(filepath.Join(dir, path)); err != nil || string(b) != want {
				t.Errorf("noWatch=%v: %s = %q (%v), want %q", noWatch, path, b, err, want)
			}
		}
		s.Close()
	}
}

// TestLoadErrorsNameTheirCause checks that a checkpoint that cannot be
// loaded is reported for what it is: no id, a malformed one, or one the
// store does not hold.
func TestLoadErrorsNameTheirCause(t *testing.T) {
	t.Parallel()
	s := openStore(t)
	missing := id.Ascending(id.Snapshot)
	tests := []struct {
		cpID     string
		want     string
		notFound bool
	}{
		{"", "no snapshot id given", false},
		{"snp_bad", "is not a snapshot id", false},
		{missing, missing + ": snapshot not found", true},
	}
	for _, tt := range tests {
		_, err := s.Load(tt.cpID)
		if err == nil || !strings.Contains(err.Error(), tt.want) || errors.Is(err, ErrNotFound) != tt.notFound {
			t.Errorf("Load(%q) = %v, want an error with %q (not found: %v)", tt.cpID, err, tt.want, tt.notFound)
		}
	}
}
