package tool

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// searchTree builds a small project: a git repository with ignore files at
// several levels, hidden files and files of several kinds. Each file's
// modification time is its position in the list, newest last.
func searchTree(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	files := []struct{ path, content string }{
		{".git/HEAD", "ref: refs/heads/main\n"},
		{".gitignore", "build/\n*.log\n!keep.log\n"},
		{".ignore", "vendor/\n"},
		{"src/a.go", "package src\n\nfunc Alpha() error { return nil }\n"},
		{"src/b.go", "package src\n\n// TODO: tidy\nfunc Beta() {}\nfunc beta2() {}\n"},
		{"src/sub/c.go", "package sub\n\nfunc Gamma() error {\n\treturn nil\n}\n"},
		{"src/web/app.ts", "export function Alpha() {}\n"},
		{"src/web/view.tsx", "export const View = () => null // TODO\n"},
		{"build/out.go", "package build\nfunc Alpha() {}\n"},
		{"x.log", "func Alpha in a log\n"},
		{"keep.log", "func Alpha kept\n"},
		{".hidden/h.go", "package hidden\nfunc Alpha() {}\n"},
		{".env", "TODO=1\n"},
		{"gen/.gitignore", "gen_*.go\n"},
		{"gen/gen_x.go", "func Alpha() {}\n"},
		{"gen/real.go", "package gen\nfunc Alpha() {}\n"},
		{"vendor/v.go", "func Alpha() {}\n"},
		{"crlf.txt", "func Alpha() {}\r\nsecond\r\n"},
		{"bin.dat", "func Alpha\x00binary\n"},
		{"docs/long.md", "TODO " + strings.Repeat("z", 2500) + "\n"},
	}
	base := time.Now().Add(-time.Hour)
	for i, f := range files {
		writeFiles(t, dir, map[string]string{f.path: f.content})
		mt := base.Add(time.Duration(i) * time.Second)
		if err := os.Chtimes(filepath.Join(dir, f.path), mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func rel(dir string, paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		r, _ := filepath.Rel(dir, p)
		out[i] = filepath.ToSlash(r)
	}
	return out
}

func TestGlob(t *testing.T) {
	t.Parallel()
	dir := searchTree(t)
	tests := []struct {
		name, pattern, path string
		want                []string // relative to dir, newest first
	}{
		{"go files, ignores and hidden respected", "**/*.go", "", []string{"gen/real.go", "src/sub/c.go", "src/b.go", "src/a.go"}},
		{"name pattern at any depth", "*.go", "", []string{"gen/real.go", "src/sub/c.go", "src/b.go", "src/a.go"}},
		{"negated ignore", "*.log", "", []string{"keep.log"}},
		{"anchored pattern", "src/*.go", "", []string{"src/b.go", "src/a.go"}},
		{"braces", "**/*.{ts,tsx}", "", []string{"src/web/view.tsx", "src/web/app.ts"}},
		{"sub directory", "*.go", "src", []string{"src/sub/c.go", "src/b.go", "src/a.go"}},
		{"root ignore applies below", "*.go", "build", nil},
		{"absolute pattern", filepath.Join(dir, "src", "**", "*.go"), "", []string{"src/sub/c.go", "src/b.go", "src/a.go"}},
		{"nothing", "*.rs", "", nil},
	}
	env := testEnv(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := map[string]any{"pattern": tt.pattern}
			if tt.path != "" {
				in["path"] = tt.path
			}
			res, err := run(t, env, "glob", dir, in)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == nil {
				if res.Output != "No files found" {
					t.Errorf("output %q, want No files found", res.Output)
				}
				return
			}
			got := rel(dir, strings.Split(res.Output, "\n"))
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestGlobLimitAndNoRepo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{".gitignore": "*.txt\n", ".ignore": "skip/\n", "skip/s.md": ""}
	for i := range 150 {
		files[fmt.Sprintf("d/f%03d.md", i)] = ""
	}
	files["notes.txt"] = ""
	writeFiles(t, dir, files)
	res, err := run(t, testEnv(t), "glob", dir, map[string]any{"pattern": "**/*.md"})
	if err != nil {
		t.Fatal(err)
	}
	out := strings.Split(res.Output, "\n\n")
	if n := len(strings.Split(out[0], "\n")); n != GlobLimit || !strings.Contains(res.Output, "(Results are truncated") || res.Metadata["truncated"] != true {
		t.Errorf("%d results, metadata %v, output tail %q", n, res.Metadata, out[len(out)-1])
	}
	if strings.Contains(res.Output, "skip/") {
		t.Error(".ignore not respected outside a repository")
	}
	// Outside a git repository .gitignore files do not count (as for ripgrep).
	res, err = run(t, testEnv(t), "glob", dir, map[string]any{"pattern": "*.txt"})
	if err != nil || !strings.HasSuffix(res.Output, "notes.txt") {
		t.Errorf("glob *.txt outside a repository: %v %q", err, res.Output)
	}
}

func TestGrep(t *testing.T) {
	t.Parallel()
	dir := searchTree(t)
	tests := []struct {
		name   string
		input  map[string]any
		want   string // exact output, with DIR for the tree
		prefix bool
	}{
		{name: "grouped by file, newest first", input: map[string]any{"pattern": `func \w+\(\) error`},
			want: "Found 2 matches\nDIR/src/sub/c.go:\n  Line 3: func Gamma() error {\n\nDIR/src/a.go:\n  Line 3: func Alpha() error { return nil }" + skippedNote(1)},
		{name: "include", input: map[string]any{"pattern": "TODO", "include": "*.{ts,tsx}"},
			want: "Found 1 matches\nDIR/src/web/view.tsx:\n  Line 1: export const View = () => null // TODO"},
		{name: "include with a path", input: map[string]any{"pattern": "Alpha", "include": "src/**/*.go"},
			want: "Found 1 matches\nDIR/src/a.go:\n  Line 3: func Alpha() error { return nil }"},
		{name: "hidden searched, ignored skipped, crlf trimmed", input: map[string]any{"pattern": "^func Alpha"},
			want: "Found 5 matches\nDIR/crlf.txt:\n  Line 1: func Alpha() {}\n\nDIR/gen/real.go:\n  Line 2: func Alpha() {}\n\nDIR/.hidden/h.go:\n  Line 2: func Alpha() {}\n\nDIR/keep.log:\n  Line 1: func Alpha kept\n\nDIR/src/a.go:\n  Line 3: func Alpha() error { return nil }" + skippedNote(1)},
		{name: "sub path", input: map[string]any{"pattern": "beta", "path": "src"},
			want: "Found 1 matches\nDIR/src/b.go:\n  Line 5: func beta2() {}"},
		{name: "single file", input: map[string]any{"pattern": "func", "path": "src/b.go"},
			want: "Found 2 matches\nDIR/src/b.go:\n  Line 4: func Beta() {}\n  Line 5: func beta2() {}"},
		{name: "long line cut", input: map[string]any{"pattern": "TODO z+"},
			want: "Found 1 matches\nDIR/docs/long.md:\n  Line 1: TODO " + strings.Repeat("z", GrepMaxLineChars-5) + "..." + skippedNote(1)},
		{name: "no match", input: map[string]any{"pattern": "NoSuchThing"}, want: "No files found" + skippedNote(1)},
	}
	for _, tt := range tests {
		for _, engine := range []string{"go", "rg"} {
			t.Run(engine+"/"+tt.name, func(t *testing.T) {
				env := testEnv(t)
				if engine == "rg" {
					rg, err := exec.LookPath("rg")
					if err != nil {
						t.Skip("ripgrep (rg) is not installed")
					}
					env.Ripgrep = rg
				}
				res, err := run(t, env, "grep", dir, tt.input)
				if err != nil {
					t.Fatal(err)
				}
				want := strings.ReplaceAll(tt.want, "DIR", dir)
				if res.Output != want {
					t.Errorf("output:\n%s\nwant:\n%s", res.Output, want)
				}
			})
		}
	}
}

func TestGrepErrorsAndLimit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b strings.Builder
	for i := range 150 {
		fmt.Fprintf(&b, "match %d\n", i)
	}
	writeFiles(t, dir, map[string]string{"m.txt": b.String()})
	env := testEnv(t)
	res, err := run(t, env, "grep", dir, map[string]any{"pattern": "match"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Output, "Found 150 matches (showing the first 100)\n") || strings.Count(res.Output, "  Line ") != GrepLimit ||
		!strings.HasSuffix(res.Output, "(Results are truncated: 50 more matches not shown. Use a more specific path, pattern or include.)") {
		t.Errorf("output %s", cutForLog(res.Output))
	}
	// The match limit does not replace the output limits.
	small := testEnv(t)
	small.Truncator.Limits = Limits{MaxBytes: 500}
	res, err = run(t, small, "grep", dir, map[string]any{"pattern": "match"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Metadata["truncated"] != true || len(res.Output) > 1000 || res.Metadata["limited"] != true {
		t.Errorf("metadata %v, output of %d bytes", res.Metadata, len(res.Output))
	}
	if _, err := run(t, env, "grep", dir, map[string]any{"pattern": "a("}); err == nil || !strings.Contains(err.Error(), "invalid regular expression") {
		t.Errorf("error %v for a bad pattern", err)
	}
	if _, err := run(t, env, "grep", dir, map[string]any{"pattern": "x", "path": "missing"}); err == nil || !strings.Contains(err.Error(), "path not found") {
		t.Errorf("error %v for a missing path", err)
	}
}

// TestGrepEnginesAgree runs the same searches with ripgrep and with the Go
// search and requires identical results.
func TestGrepEnginesAgree(t *testing.T) {
	t.Parallel()
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("ripgrep (rg) is not installed; the comparison needs it")
	}
	trees := map[string]string{"project": searchTree(t)}
	if goroot := goRoot(); goroot != "" {
		for _, sub := range []string{"src/encoding/json", "src/regexp", "src/net/http/httptest"} {
			if _, err := os.Stat(filepath.Join(goroot, sub)); err == nil {
				trees[sub] = filepath.Join(goroot, sub)
			}
		}
	}
	queries := []grepParams{
		{Pattern: `func \w+`},
		{Pattern: `TODO|Alpha`},
		{Pattern: `(?i)error`, Include: "*.go"},
		{Pattern: `^\s*return nil$`},
		{Pattern: `Alpha`, Include: "src/**"},
		{Pattern: `z{3}`},
	}
	for name, dir := range trees {
		for _, q := range queries {
			t.Run(name+"/"+q.Pattern+"/"+q.Include, func(t *testing.T) {
				call, _ := newCall(t, "grep", dir, nil)
				gq, err := newGrepQuery(call, q)
				if err != nil {
					t.Fatal(err)
				}
				gq.secrets, gq.project = Env{}.secrets(), dir
				want, wantSkipped, err := gq.search(context.Background(), rg)
				if err != nil {
					t.Fatal(err)
				}
				got, gotSkipped, err := gq.search(context.Background(), "")
				if err != nil {
					t.Fatal(err)
				}
				if gotSkipped != wantSkipped {
					t.Errorf("go search skipped %d secret files, ripgrep %d", gotSkipped, wantSkipped)
				}
				if !slices.Equal(got, want) {
					t.Errorf("go search: %d matches, ripgrep: %d", len(got), len(want))
					for i := range min(len(got), len(want)) {
						if got[i] != want[i] {
							t.Errorf("first difference at %d: go %+v, rg %+v", i, got[i], want[i])
							break
						}
					}
				}
			})
		}
	}
}

// BenchmarkGrep searches the Go standard library's source with ripgrep and
// with the Go search.
func BenchmarkGrep(b *testing.B) {
	root := filepath.Join(goRoot(), "src")
	if _, err := os.Stat(root); goRoot() == "" || err != nil {
		b.Skip("no GOROOT source")
	}
	q := grepParams{Pattern: `func \(\w+ \*?\w+\) Close\(\) error`}
	call, _ := newCall(b, "grep", root, nil)
	gq, err := newGrepQuery(call, q)
	if err != nil {
		b.Fatal(err)
	}
	engines := map[string]string{"go": ""}
	if rg, err := exec.LookPath("rg"); err == nil {
		engines["ripgrep"] = rg
	}
	for _, name := range []string{"ripgrep", "go"} {
		rg, ok := engines[name]
		if !ok {
			continue
		}
		b.Run(name, func(b *testing.B) {
			matches := 0
			for b.Loop() {
				ms, _, err := gq.search(context.Background(), rg)
				if err != nil {
					b.Fatal(err)
				}
				matches = len(ms)
			}
			b.ReportMetric(float64(matches), "matches")
		})
	}
}

// goRoot is the Go installation's root, from "go env GOROOT", or "".
func goRoot() string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
