package lsp

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// needGopls puts gopls on PATH (from GOPATH/bin when it is only there) or
// skips the test.
func needGopls(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("gopls"); err == nil {
		return
	}
	out, err := exec.Command("go", "env", "GOPATH").Output()
	if err == nil {
		bin := filepath.Join(strings.TrimSpace(string(out)), "bin")
		if _, err := os.Stat(filepath.Join(bin, "gopls")); err == nil {
			t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			return
		}
	}
	t.Skip("gopls is not installed: go install golang.org/x/tools/gopls@v0.21.1 (.ci/run does)")
}

func writeFile(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// goModule writes a small module with two files and returns its root.
func goModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/m\n\ngo 1.22\n")
	writeFile(t, filepath.Join(dir, "main.go"), "package main\n\nfunc main() {\n\tprintln(Twice(2))\n}\n")
	writeFile(t, filepath.Join(dir, "util.go"), "package main\n\n// Twice doubles n.\nfunc Twice(n int) int { return 2 * n }\n")
	return dir
}

func TestDiagnoseGopls(t *testing.T) {
	needGopls(t)
	dir := goModule(t)
	m := New(Options{Servers: Builtins(), Worktree: dir})
	defer m.Close()
	ctx := context.Background()
	mainGo := filepath.Join(dir, "main.go")

	writeFile(t, mainGo, "package main\n\nfunc main() {\n\tvar s string = Twice(2)\n\tprintln(s)\n}\n")
	got := m.Diagnose(ctx, []string{mainGo})
	if !strings.Contains(got, `<diagnostics file="main.go" server="gopls">`) || !strings.Contains(got, "4:17 error: cannot use Twice(2)") {
		t.Fatalf("after a type error, Diagnose = %q", got)
	}
	if !m.Running() {
		t.Error("Running = false with gopls started")
	}

	writeFile(t, mainGo, "package main\n\nfunc main() {\n\tvar n int = Twice(2)\n\tprintln(n)\n}\n")
	if got := m.Diagnose(ctx, []string{mainGo}); got != "" {
		t.Fatalf("after the fix, Diagnose = %q, want nothing", got)
	}

	// Changing Twice's signature breaks main.go, which this change did not touch.
	utilGo := filepath.Join(dir, "util.go")
	writeFile(t, utilGo, "package main\n\n// Twice doubles n.\nfunc Twice(n string) string { return n + n }\n")
	got = m.Diagnose(ctx, []string{utilGo})
	if !strings.Contains(got, "<diagnostics other_files>") || !strings.Contains(got, "main.go (") {
		t.Fatalf("after breaking a caller, Diagnose = %q, want new errors in main.go counted", got)
	}
	if strings.Contains(got, `file="util.go"`) {
		t.Errorf("util.go itself has no errors, got %q", got)
	}

	st := m.Status()
	if len(st) != 1 || st[0].Server != "gopls" || st[0].State != Running || st[0].Root != dir || st[0].Pid == 0 {
		t.Fatalf("Status = %+v", st)
	}
	pid := st[0].Pid
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if processAlive(pid) {
		t.Errorf("gopls (pid %d) still runs after Close", pid)
	}
}

func TestDiagnoseNoServer(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", dir) // nothing installed
	m := New(Options{Servers: Builtins(), Worktree: dir})
	defer m.Close()
	p := filepath.Join(dir, "main.go")
	writeFile(t, p, "package main\n\nfunc main() { undefined() }\n")
	if got := m.Diagnose(context.Background(), []string{p}); got != "" {
		t.Fatalf("with no server installed, Diagnose = %q", got)
	}
	if m.Running() || len(m.Status()) != 0 {
		t.Fatalf("a server was started: %+v", m.Status())
	}
}

// TestCrashingServerIsNotRetriedForever uses a "server" that writes a line
// to its standard error and exits at once.
func TestCrashingServerIsNotRetriedForever(t *testing.T) {
	dir := t.TempDir()
	starts := filepath.Join(dir, "starts")
	script := filepath.Join(dir, "bad-server")
	writeFile(t, script, "#!/bin/sh\necho start >> "+starts+"\necho 'cannot load the workspace' >&2\nexit 3\n")
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	m := New(Options{Servers: []Server{{Name: "bad", Command: []string{script}, Extensions: []string{".go"}}}, Worktree: dir})
	defer m.Close()
	p := filepath.Join(dir, "a.go")
	writeFile(t, p, "package a\n")
	var reports []string
	for range MaxRestarts + 3 {
		reports = append(reports, m.Diagnose(context.Background(), []string{p}))
	}
	for i, r := range reports[:MaxRestarts+1] {
		if !strings.Contains(r, "The bad language server") || !strings.Contains(r, "cannot load the workspace") {
			t.Errorf("report %d = %q, want the failure and its reason", i, r)
		}
	}
	if !strings.Contains(reports[MaxRestarts], "will not be started again") {
		t.Errorf("last report = %q, want the server marked failed", reports[MaxRestarts])
	}
	for i, r := range reports[MaxRestarts+1:] {
		if r != "" {
			t.Errorf("report %d after the failure = %q, want nothing", MaxRestarts+1+i, r)
		}
	}
	b, _ := os.ReadFile(starts)
	if n := strings.Count(string(b), "start"); n != MaxRestarts+1 {
		t.Errorf("server started %d times, want %d", n, MaxRestarts+1)
	}
	st := m.Status()
	if len(st) != 1 || st[0].State != Failed || st[0].Restarts != MaxRestarts || !strings.Contains(st[0].Reason, "exit status 3") {
		t.Errorf("Status = %+v", st)
	}
}

func TestResolve(t *testing.T) {
	names := func(ss []Server) string {
		var out []string
		for _, s := range ss {
			out = append(out, s.Name)
		}
		return strings.Join(out, ",")
	}
	all := names(Builtins())
	tests := []struct {
		name, raw, want, err string
		check                func(t *testing.T, ss []Server)
	}{
		{name: "absent", raw: ``, want: all},
		{name: "true", raw: `true`, want: all},
		{name: "false", raw: `false`, want: ""},
		{name: "disable one", raw: `{"gopls": {"disabled": true}}`, want: strings.TrimPrefix(all, "gopls,")},
		{name: "override command", raw: `{"gopls": {"command": ["/opt/gopls", "serve"], "env": {"GOFLAGS": "-tags=x"}, "initialization": {"staticcheck": true}, "warnings": true}}`, want: all,
			check: func(t *testing.T, ss []Server) {
				g := ss[0]
				if strings.Join(g.Command, " ") != "/opt/gopls serve" || g.Env["GOFLAGS"] != "-tags=x" || !g.Warnings ||
					string(g.Initialization) != `{"staticcheck": true}` || strings.Join(g.Extensions, ",") != ".go" {
					t.Errorf("gopls = %+v", g)
				}
			}},
		{name: "add server", raw: `{"lua": {"command": ["lua-language-server"], "extensions": ["lua", ".LUA"]}}`, want: "lua," + all,
			check: func(t *testing.T, ss []Server) {
				if strings.Join(ss[0].Extensions, ",") != ".lua,.lua" {
					t.Errorf("extensions = %v", ss[0].Extensions)
				}
			}},
		{name: "new server needs command", raw: `{"lua": {"extensions": [".lua"]}}`, err: `server "lua": a server codeloop does not know needs "command"`},
		{name: "new server needs extensions", raw: `{"lua": {"command": ["x"]}}`, err: `needs "extensions"`},
		{name: "bad shape", raw: `{"lua": 1}`, err: "want false, true or an object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ss, err := Resolve(json.RawMessage(tt.raw))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := names(ss); got != tt.want {
				t.Errorf("servers = %s, want %s", got, tt.want)
			}
			if tt.check != nil {
				tt.check(t, ss)
			}
		})
	}
}

func TestFindRoot(t *testing.T) {
	wt := t.TempDir()
	writeFile(t, filepath.Join(wt, "go.work"), "go 1.22\n")
	writeFile(t, filepath.Join(wt, "a", "go.mod"), "module a\n")
	writeFile(t, filepath.Join(wt, "b", "x.py"), "")
	writeFile(t, filepath.Join(wt, "b", "c", "pyproject.toml"), "")
	gopls, py := Builtins()[0], Builtins()[3]
	for _, tt := range []struct {
		s    Server
		file string
		want string
	}{
		{gopls, "a/main.go", "."}, // go.work wins over the nearer go.mod
		{py, "b/c/d/x.py", "b/c"},
		{py, "b/x.py", "."}, // no marker up to the worktree
	} {
		got := tt.s.findRoot(filepath.Join(wt, tt.file), wt)
		if want := filepath.Join(wt, tt.want); got != want {
			t.Errorf("%s root of %s = %s, want %s", tt.s.Name, tt.file, got, want)
		}
	}
	for file, want := range map[string]string{"x.tsx": "typescriptreact", "x.GO": "go", "x.hpp": "cpp", "x.zzz": "zzz"} {
		if got := languageID(file); got != want {
			t.Errorf("languageID(%s) = %s, want %s", file, got, want)
		}
	}
}

func TestQueryGopls(t *testing.T) {
	needGopls(t)
	dir := goModule(t)
	m := New(Options{Servers: Builtins(), Worktree: dir})
	defer m.Close()
	ctx := context.Background()
	mainGo := filepath.Join(dir, "main.go")
	for _, tt := range []struct {
		op        string
		line, col int
		query     string
		want      []string
	}{
		{op: OpDefinition, line: 4, col: 10, want: []string{"util.go:4:6: func Twice(n int) int { return 2 * n }"}},
		{op: OpReferences, line: 4, col: 10, want: []string{"main.go:4:10:", "util.go:4:6:"}},
		{op: OpHover, line: 4, col: 10, want: []string{"func Twice(n int) int", "Twice doubles n."}},
		{op: OpDocumentSymbol, want: []string{"main.go:\nFunction main (func()) 3:6"}},
		{op: OpWorkspaceSymbol, query: "Twice", want: []string{"Function Twice util.go:4:6"}},
	} {
		got, err := m.Query(ctx, tt.op, mainGo, tt.line, tt.col, tt.query)
		if err != nil {
			t.Fatalf("%s: %v", tt.op, err)
		}
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s = %q, want it to contain %q", tt.op, got, w)
			}
		}
	}
	if _, err := m.Query(ctx, OpHover, filepath.Join(dir, "notes.txt"), 1, 1, ""); err == nil {
		t.Error("a query on a file no server serves succeeded")
	}
}

func TestCheckGopls(t *testing.T) {
	needGopls(t)
	dir := goModule(t)
	writeFile(t, filepath.Join(dir, "main.go"), "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tvar s string = Twice(2)\n}\n")
	m := New(Options{Servers: Builtins(), Worktree: dir})
	defer m.Close()
	got, err := m.Check(context.Background(), filepath.Join(dir, "main.go"), 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`main.go:3:8: error: "fmt" imported and not used (gopls)`,
		"main.go:6:17: error: cannot use Twice(2)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Check = %q, want %q", got, want)
		}
	}
	if _, err := m.Check(context.Background(), filepath.Join(dir, "README"), time.Second); err == nil {
		t.Error("Check of a file no server serves succeeded")
	}
}

func TestWorkspaceSymbolsGopls(t *testing.T) {
	needGopls(t)
	dir := goModule(t)
	m := New(Options{Servers: Builtins(), Worktree: dir})
	defer m.Close()
	ctx := context.Background()
	if got := m.WorkspaceSymbols(ctx, "Twice"); len(got) != 0 {
		t.Errorf("with no server running: %+v", got)
	}
	if _, err := m.Query(ctx, OpHover, filepath.Join(dir, "main.go"), 4, 10, ""); err != nil {
		t.Fatal(err)
	}
	got := m.WorkspaceSymbols(ctx, "Twice")
	i := slices.IndexFunc(got, func(s WorkspaceSymbol) bool { return s.Name == "Twice" })
	if i < 0 {
		t.Fatalf("no Twice among %+v", got)
	}
	if s := got[i]; s.Path != filepath.Join(dir, "util.go") || s.Range.Start.Line != 3 || s.Kind != 12 {
		t.Errorf("Twice: %+v, want util.go line 4 (0-based 3), kind Function (12)", s)
	}
	for _, s := range got {
		if !strings.HasPrefix(s.Path, dir+string(filepath.Separator)) {
			t.Errorf("a symbol outside the worktree: %+v", s)
		}
	}
}
