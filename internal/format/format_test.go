package format

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestGofmt(t *testing.T) {
	if _, err := exec.LookPath("gofmt"); err != nil {
		t.Skip("gofmt is not on PATH")
	}
	dir := t.TempDir()
	r := New(Options{Formatters: Builtins(), Worktree: dir})
	ctx := context.Background()
	p := filepath.Join(dir, "main.go")

	write(t, p, "package main\nfunc main() {\n      println( 1 )\n}\n")
	res := r.Format(ctx, p)
	if res.Formatter != "gofmt" || !res.Changed || res.Err != nil {
		t.Fatalf("Format = %+v", res)
	}
	if got, want := read(t, p), "package main\n\nfunc main() {\n\tprintln(1)\n}\n"; got != want {
		t.Errorf("formatted = %q, want %q", got, want)
	}

	res = r.Format(ctx, p)
	if res.Changed || res.Err != nil {
		t.Errorf("formatting a formatted file = %+v, want no change", res)
	}

	bad := "package main\nfunc main() {\n      println( 1\n}\n"
	write(t, p, bad)
	res = r.Format(ctx, p)
	if res.Err == nil || !strings.Contains(res.Err.Error(), "exit status 2") || !strings.Contains(res.Err.Error(), "main.go:") {
		t.Errorf("Format of a syntax error = %+v, want gofmt's complaint", res)
	}
	if got := read(t, p); got != bad {
		t.Errorf("after a failed format the file is %q, want it as written", got)
	}

	outside := filepath.Join(t.TempDir(), "x.go")
	write(t, outside, "package x\nfunc  f() {}\n")
	if res := r.Format(ctx, outside); res.Formatter != "" {
		t.Errorf("a file outside the worktree was formatted: %+v", res)
	}
}

func TestNeedsConfig(t *testing.T) {
	dir := t.TempDir()
	f := Formatter{Name: "sed", Command: []string{"sed", "-i", "s/a/b/", "$FILE"}, Extensions: []string{".txt"},
		Needs: []Marker{{Name: "fmt.toml", Contains: "[tool.sed]"}}}
	r := New(Options{Formatters: []Formatter{f}, Worktree: dir})
	p := filepath.Join(dir, "sub", "x.txt")
	write(t, p, "a\n")
	if res := r.Format(context.Background(), p); res.Formatter != "" || read(t, p) != "a\n" {
		t.Fatalf("without its config file: %+v", res)
	}
	write(t, filepath.Join(dir, "fmt.toml"), "[other]\n")
	if res := r.Format(context.Background(), p); res.Formatter != "" {
		t.Fatalf("with a config file lacking the table: %+v", res)
	}
	write(t, filepath.Join(dir, "fmt.toml"), "[tool.sed]\n")
	if res := r.Format(context.Background(), p); res.Formatter != "sed" || !res.Changed || read(t, p) != "b\n" {
		t.Fatalf("with its config file: %+v, file %q", res, read(t, p))
	}
}

func TestTimeoutKeepsFile(t *testing.T) {
	dir := t.TempDir()
	f := Formatter{Name: "slow", Command: []string{"sh", "-c", `printf 'partial' > "$0"; sleep 30`, "$FILE"}, Extensions: []string{".txt"}}
	r := New(Options{Formatters: []Formatter{f}, Worktree: dir, Timeout: 300 * time.Millisecond})
	p := filepath.Join(dir, "x.txt")
	write(t, p, "as written\n")
	res := r.Format(context.Background(), p)
	if res.Err == nil || !strings.Contains(res.Err.Error(), "timed out") {
		t.Fatalf("Format = %+v, want a timeout", res)
	}
	if got := read(t, p); got != "as written\n" {
		t.Errorf("file = %q, want it as written", got)
	}
}

func TestNodeModulesBin(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", "/nonexistent")
	bin := filepath.Join(dir, "node_modules", ".bin", "upfmt")
	write(t, bin, "#!/bin/sh\necho formatted > \"$1\"\n")
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	r := New(Options{Formatters: []Formatter{{Name: "up", Command: []string{"upfmt", "$FILE"}, Extensions: []string{".txt"}}}, Worktree: dir})
	p := filepath.Join(dir, "a", "x.txt")
	write(t, p, "x\n")
	if res := r.Format(context.Background(), p); res.Formatter != "up" || !res.Changed || read(t, p) != "formatted\n" {
		t.Fatalf("Format = %+v, file %q", res, read(t, p))
	}
}

func TestResolve(t *testing.T) {
	names := func(fs []Formatter) string {
		var out []string
		for _, f := range fs {
			out = append(out, f.Name)
		}
		return strings.Join(out, ",")
	}
	all := names(Builtins())
	for _, tt := range []struct {
		name, raw, want, err string
		check                func(t *testing.T, fs []Formatter)
	}{
		{name: "absent", raw: ``, want: all},
		{name: "true", raw: `true`, want: all},
		{name: "false", raw: `false`, want: ""},
		{name: "disable", raw: `{"gofmt": {"disabled": true}}`, want: strings.TrimPrefix(all, "gofmt,")},
		{name: "override", raw: `{"prettier": {"command": ["npx", "prettier", "-w", "$FILE"], "environment": {"A": "1"}}}`, want: all,
			check: func(t *testing.T, fs []Formatter) {
				p := fs[1]
				if strings.Join(p.Command, " ") != "npx prettier -w $FILE" || p.Needs != nil || p.Env["A"] != "1" || len(p.Extensions) == 0 {
					t.Errorf("prettier = %+v", p)
				}
			}},
		{name: "add", raw: `{"gofumpt": {"command": ["gofumpt", "-w", "$FILE"], "extensions": ["go"]}}`, want: "gofumpt," + all},
		{name: "add needs command", raw: `{"x": {"extensions": [".x"]}}`, err: `formatter "x": a formatter codeloop does not know needs "command"`},
		{name: "bad", raw: `[1]`, err: "want false, true or an object"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fs, err := Resolve(json.RawMessage(tt.raw))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := names(fs); got != tt.want {
				t.Errorf("formatters = %s, want %s", got, tt.want)
			}
			if tt.check != nil {
				tt.check(t, fs)
			}
		})
	}
}
