package tool

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// projectTree makes a git repository with a source file, a secret file,
// an ignored directory, a nested .gitignore, and links leading out of it
// to a directory beside it.
func projectTree(t *testing.T) (root, outside string) {
	t.Helper()
	base := t.TempDir()
	root, outside = filepath.Join(base, "project"), filepath.Join(base, "outside")
	files := map[string]string{
		"project/src/main.go":        "package main // zebra\n",
		"project/src/gen/keep.go":    "package gen // zebra kept\n",
		"project/src/gen/skip.go":    "package gen // zebra skipped\n",
		"project/src/gen/.gitignore": "skip.go\n",
		"project/.env":               "TOKEN=zebra-secret\n",
		"project/.env.example":       "TOKEN=\n",
		"project/.gitignore":         "dist/\n",
		"project/dist/app.js":        "zebra built\n",
		"outside/secret.txt":         "zebra outside\n",
	}
	for name, text := range files {
		p := filepath.Join(base, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	for link, to := range map[string]string{
		"project/out":         outside,
		"project/out.txt":     filepath.Join(outside, "secret.txt"),
		"project/src/env":     "../.env",
		"project/src/skip.go": "gen/skip.go",
	} {
		if err := os.Symlink(to, filepath.Join(base, link)); err != nil {
			t.Fatal(err)
		}
	}
	return root, outside
}

func TestProjectFilesRead(t *testing.T) {
	root, outside := projectTree(t)
	p := ProjectFiles{Root: root}
	ctx := context.Background()
	tests := []struct {
		path    string
		refused bool
		want    string
	}{
		{"src/main.go", false, "package main // zebra\n"},
		{filepath.Join(root, "src", "main.go"), false, "package main // zebra\n"},
		{".env.example", false, "TOKEN=\n"},
		{"src/gen/keep.go", false, "package gen // zebra kept\n"},
		{"src/gen/skip.go", true, ""}, // the nested .gitignore
		{"src/skip.go", true, ""},     // a link to an ignored file
		{"dist/app.js", true, ""},     // ignored directory
		{".git/HEAD", true, ""},       // .git
		{".env", true, ""},            // secret
		{"src/env", true, ""},         // a link to a secret file
		{"../outside/secret.txt", true, ""},
		{"src/../src/main.go", true, ""},
		{filepath.Join(outside, "secret.txt"), true, ""},
		{"/etc/hostname", true, ""},
		{"out.txt", true, ""},
		{"out/secret.txt", true, ""},
		{"src/main.go\x00.txt", true, ""},
	}
	for _, tt := range tests {
		got, err := p.Read(ctx, tt.path)
		if tt.refused {
			if !errors.Is(err, ErrRefused) {
				t.Errorf("Read(%q) = %q, %v; want a refusal", tt.path, got.Content, err)
			}
			continue
		}
		if err != nil || got.Binary || got.Content != tt.want {
			t.Errorf("Read(%q) = %+v, %v; want %q", tt.path, got, err, tt.want)
		}
	}
	if _, err := p.Read(ctx, "src/none.go"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}

func TestProjectFilesList(t *testing.T) {
	root, _ := projectTree(t)
	p := ProjectFiles{Root: root}
	es, err := p.List(context.Background(), "src/gen")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range es {
		s := e.Path
		if e.Ignored {
			s += " (ignored)"
		}
		got = append(got, s)
	}
	want := []string{"src/gen/.gitignore", "src/gen/keep.go", "src/gen/skip.go (ignored)"}
	if !slices.Equal(got, want) {
		t.Errorf("List(src/gen) = %q, want %q", got, want)
	}
	for _, dir := range []string{"..", "out", "dist", ".git", "/"} {
		if _, err := p.List(context.Background(), dir); !errors.Is(err, ErrRefused) {
			t.Errorf("List(%q): %v, want a refusal", dir, err)
		}
	}
}

// TestProjectFilesFind: both search engines find the same lines, and
// neither a secret file's, an ignored file's, nor a file behind a link.
func TestProjectFilesFind(t *testing.T) {
	root, _ := projectTree(t)
	engines := []string{"-"}
	if rg, err := exec.LookPath("rg"); err == nil {
		engines = append(engines, rg)
	}
	for _, rg := range engines {
		p := ProjectFiles{Root: root, Ripgrep: rg}
		ms, err := p.FindText(context.Background(), "zebra", 0)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range ms {
			got = append(got, m.Path)
			if len(m.Submatches) != 1 || m.Text[m.Submatches[0][0]:m.Submatches[0][1]] != "zebra" {
				t.Errorf("%s: submatches %v of %q", rg, m.Submatches, m.Text)
			}
		}
		slices.Sort(got)
		if want := []string{"src/gen/keep.go", "src/main.go"}; !slices.Equal(got, want) {
			t.Errorf("engine %s: FindText(zebra) in %q, want %q", rg, got, want)
		}
	}
	p := ProjectFiles{Root: root}
	got, err := p.FindFiles(context.Background(), "go", true, true, 10)
	if err != nil {
		t.Fatal(err)
	}
	// Names holding "go" first, shorter paths first, then those holding
	// its letters in order; nothing ignored.
	if want := []string{"src/main.go", "src/gen/keep.go", ".gitignore", "src/gen/.gitignore"}; !slices.Equal(got, want) {
		t.Errorf("FindFiles(go) = %q, want %q", got, want)
	}
	got, _ = p.FindFiles(context.Background(), "ge", false, true, 10)
	if want := []string{"src/gen/"}; !slices.Equal(got, want) {
		t.Errorf("FindFiles(ge, directories) = %q, want %q", got, want)
	}
}

// TestOpenedPath: the path checked after opening is the file's own, not
// the link's, so a link swapped in after the checks is caught.
func TestOpenedPath(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc on this system")
	}
	root, outside := projectTree(t)
	f, err := os.Open(filepath.Join(root, "out.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, ok := openedPath(f)
	if want := filepath.Join(outside, "secret.txt"); !ok || got != want {
		t.Errorf("openedPath = %q, %v; want %q", got, ok, want)
	}
}
