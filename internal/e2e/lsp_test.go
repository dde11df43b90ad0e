package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/waitfor"
)

// goplsDir returns the directory holding gopls (on PATH, or in GOPATH/bin
// where go install puts it) or skips the test.
func goplsDir(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("gopls"); err == nil {
		return filepath.Dir(p)
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		bin := filepath.Join(strings.TrimSpace(string(out)), "bin")
		if _, err := os.Stat(filepath.Join(bin, "gopls")); err == nil {
			return bin
		}
	}
	t.Skip("gopls is not installed and could not be found in GOPATH/bin: run go install golang.org/x/tools/gopls@v0.21.1 (.ci/run does)")
	return ""
}

// withPath returns env with PATH replaced.
func withPath(env []string, path string) []string {
	out := make([]string, 0, len(env))
	for _, e := range env {
		if !strings.HasPrefix(e, "PATH=") {
			out = append(out, e)
		}
	}
	return append(out, "PATH="+path)
}

// runWith runs codeloop with env to the end.
func (p *project) runWith(env []string, args ...string) (stdout, stderr string, code int) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := p.command(ctx, args...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code = cmd.ProcessState.ExitCode()
	if err != nil && code < 0 {
		p.t.Fatalf("codeloop %v: %v\n%s", args, err, errb.String())
	}
	return out.String(), errb.String(), code
}

// toolResults returns the tool results of the model's last request, by
// call id.
func (p *project) toolResults() map[string]string {
	p.t.Helper()
	reqs := p.model.Requests()
	if len(reqs) == 0 {
		p.t.Fatal("no model requests")
	}
	var body struct {
		Messages []struct {
			Role       string          `json:"role"`
			ToolCallID string          `json:"tool_call_id"`
			Content    json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(reqs[len(reqs)-1].Body, &body); err != nil {
		p.t.Fatal(err)
	}
	out := map[string]string{}
	for _, m := range body.Messages {
		if m.Role != "tool" {
			continue
		}
		var s string
		if json.Unmarshal(m.Content, &s) != nil {
			s = string(m.Content)
		}
		out[m.ToolCallID] = s
	}
	return out
}

// serverProcs returns the pids of processes named name whose working
// directory is dir: the language servers codeloop started for a project.
func serverProcs(name, dir string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		comm, err := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		if err != nil || strings.TrimSpace(string(comm)) != name {
			continue
		}
		if cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd")); err == nil && cwd == dir {
			pids = append(pids, pid)
		}
	}
	return pids
}

const goMod = "module example.com/m\n\ngo 1.22\n"

func goFiles() map[string]string {
	return map[string]string{
		"go.mod":  goMod,
		"main.go": "package main\n\nfunc main() {\n\tprintln(Twice(2))\n}\n",
		"util.go": "package main\n\n// Twice doubles n.\nfunc Twice(n int) int { return 2 * n }\n",
	}
}

func TestLSPDiagnosticsAndFormatting(t *testing.T) {
	bin := goplsDir(t)
	script := `
step
call c1 write {"filePath":"main.go","content":"package main\n\nfunc main() {\n\tvar s string = Twice(2)\n\tprintln(s)\n}\n"}
finish tool-calls
step
call c2 edit {"filePath":"main.go","oldString":"var s string = Twice(2)","newString":"s := Twice(2)"}
finish tool-calls
step
call c3 write {"filePath":"util.go","content":"package main\n\n// Twice doubles n.\nfunc Twice(n int) int {\n        return 2*n\n}\n"}
finish tool-calls
step
call c4 lsp {"operation":"goToDefinition","filePath":"main.go","line":4,"character":7}
finish tool-calls
step
text done
finish stop
`
	p := newProject(t, script, goFiles())
	env := withPath(p.env(), bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	stdout, stderr, code := p.runWith(env, "run", "fix main.go")
	if code != 0 {
		t.Fatalf("exit status %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	res := p.toolResults()
	if r := res["c1"]; !strings.Contains(r, `<diagnostics file="main.go" server="gopls">`) ||
		!strings.Contains(r, "4:17 error: cannot use Twice(2) (value of type int) as string value in variable declaration") {
		t.Errorf("the write that adds a type error returned %q, want the error", r)
	}
	if r := res["c2"]; r != "Edit applied successfully." {
		t.Errorf("the edit that fixes it returned %q, want no diagnostics", r)
	}
	if r := res["c3"]; r != "Wrote file successfully.\n\nFormatted util.go with gofmt." {
		t.Errorf("the badly indented write returned %q, want it formatted and said so", r)
	}
	if got, want := p.read("util.go"), "package main\n\n// Twice doubles n.\nfunc Twice(n int) int {\n\treturn 2 * n\n}\n"; got != want {
		t.Errorf("util.go = %q, want it gofmt-formatted", got)
	}
	if r := res["c4"]; r != "util.go:4:6: func Twice(n int) int {" {
		t.Errorf("the lsp tool's goToDefinition returned %q", r)
	}
	// The lsp tool is offered once a server runs, not before.
	reqs := p.model.Requests()
	if offersTool(t, reqs[0].Body, "lsp") || !offersTool(t, reqs[1].Body, "lsp") {
		t.Errorf("lsp tool offered before any server ran: %v, after: %v", offersTool(t, reqs[0].Body, "lsp"), offersTool(t, reqs[1].Body, "lsp"))
	}
	if pids := serverProcs("gopls", p.dir); len(pids) > 0 {
		t.Errorf("gopls still runs after codeloop exited: %v", pids)
	}
}

// offersTool reports whether a chat completions request lists the tool.
func offersTool(t *testing.T, body []byte, name string) bool {
	t.Helper()
	var req struct {
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	for _, tl := range req.Tools {
		if tl.Function.Name == name {
			return true
		}
	}
	return false
}

func TestLSPOffPath(t *testing.T) {
	// PATH without any directory that holds gopls.
	var dirs []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(d, "gopls")); err != nil {
			dirs = append(dirs, d)
		}
	}
	script := `
step
call c1 write {"filePath":"main.go","content":"package main\n\nfunc main() {\n\tvar s string = Twice(2)\n\tprintln(s)\n}\n"}
finish tool-calls
step
text done
finish stop
`
	p := newProject(t, script, goFiles())
	stdout, stderr, code := p.runWith(withPath(p.env(), strings.Join(dirs, string(os.PathListSeparator))), "run", "change main.go")
	if code != 0 {
		t.Fatalf("exit status %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if r := p.toolResults()["c1"]; r != "Wrote file successfully." {
		t.Errorf("without gopls the write returned %q, want nothing about language servers", r)
	}
	if !strings.Contains(p.read("main.go"), "var s string = Twice(2)") {
		t.Error("the write did not happen")
	}
	for i, r := range p.model.Requests() {
		if offersTool(t, r.Body, "lsp") {
			t.Errorf("request %d offers the lsp tool with no server installed", i)
		}
	}
}

func TestLSPServerThatExitsAtOnce(t *testing.T) {
	var script strings.Builder
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&script, "step\ncall c%d write {\"filePath\":\"a.go\",\"content\":\"package a\\n\\nvar X = %d\\n\"}\nfinish tool-calls\n", i, i)
	}
	script.WriteString("step\ntext done\nfinish stop\n")
	p := newProject(t, script.String(), map[string]string{"go.mod": goMod})
	starts := filepath.Join(p.home, "starts")
	server := filepath.Join(p.home, "broken-server")
	if err := os.WriteFile(server, []byte("#!/bin/sh\necho x >> "+starts+"\necho 'panic: no workspace' >&2\nexit 2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := p.read("opencode.jsonc")
	cfg = strings.Replace(cfg, `"model": "fake/model",`, `"model": "fake/model",
  "lsp": {"gopls": {"disabled": true}, "broken": {"command": ["`+server+`"], "extensions": [".go"]}},`, 1)
	p.write(map[string]string{"opencode.jsonc": cfg})
	p.trust()
	stdout, stderr, code := p.run("run", "change a.go")
	if code != 0 {
		t.Fatalf("exit status %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	res := p.toolResults()
	for i := 1; i <= 4; i++ {
		if r := res[fmt.Sprintf("c%d", i)]; !strings.Contains(r, "The broken language server") || !strings.Contains(r, "panic: no workspace") {
			t.Errorf("result %d = %q, want the server's failure with its reason", i, r)
		}
	}
	if r := res["c4"]; !strings.Contains(r, "will not be started again") {
		t.Errorf("result 4 = %q, want the server marked failed", r)
	}
	for i := 5; i <= 6; i++ {
		if r := res[fmt.Sprintf("c%d", i)]; r != "Wrote file successfully." {
			t.Errorf("result %d = %q, want no more reports", i, r)
		}
	}
	b, _ := os.ReadFile(starts)
	if n := strings.Count(string(b), "x"); n != 4 {
		t.Errorf("the server was started %d times, want 4 (one start and three restarts)", n)
	}
}

func TestLSPServerDiesWithCodeloop(t *testing.T) {
	bin := goplsDir(t)
	script := `
step
call c1 write {"filePath":"main.go","content":"package main\n\nfunc main() {\n\tvar s string = 1\n\tprintln(s)\n}\n"}
finish tool-calls
step
text thinking
hang
`
	p := newProject(t, script, goFiles())
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := p.command(ctx, "run", "change main.go")
	cmd.Env = withPath(p.env(), bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.model.Hung():
	case <-ctx.Done():
		t.Fatal("the model was never asked a second time")
	}
	pids := serverProcs("gopls", p.dir)
	if len(pids) == 0 {
		t.Fatal("no gopls runs for the project while codeloop does")
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	waitfor.Within(waitfor.Deadline, func() bool { return len(serverProcs("gopls", p.dir)) == 0 })
	if left := serverProcs("gopls", p.dir); len(left) > 0 {
		t.Errorf("gopls %v outlived codeloop killed with SIGKILL", left)
	}
}

func TestDebugLSP(t *testing.T) {
	bin := goplsDir(t)
	files := goFiles()
	files["main.go"] = "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tprintln(Twice(\"x\"))\n}\n"
	p := newProject(t, "", files)
	env := withPath(p.env(), bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	stdout, stderr, code := p.runWith(env, "debug", "lsp")
	if code != 0 || !strings.Contains(stdout, "gopls") || !strings.Contains(stdout, "installed: "+filepath.Join(bin, "gopls")) {
		t.Errorf("debug lsp: status %d\n%s%s", code, stdout, stderr)
	}
	stdout, stderr, code = p.runWith(env, "debug", "lsp", "main.go")
	for _, want := range []string{
		`main.go:3:8: error: "fmt" imported and not used (gopls)`,
		"main.go:6:16: error: cannot use \"x\" (untyped string constant) as int value in argument to Twice (gopls)",
		"gopls  running (pid ",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("debug lsp main.go lacks %q: status %d\n%s%s", want, code, stdout, stderr)
		}
	}
	if pids := serverProcs("gopls", p.dir); len(pids) > 0 {
		t.Errorf("gopls still runs after debug lsp ended: %v", pids)
	}
}

// TestLSPNotStartedByReadsInRun runs a task that only reads Go files: a
// one-shot run starts no language server for reads (the first edit would),
// so it spends nothing on one and waits for none at exit.
func TestLSPNotStartedByReadsInRun(t *testing.T) {
	bin := goplsDir(t)
	script := "step\ncall c1 read {\"filePath\":\"main.go\"}\ncall c2 read {\"filePath\":\"util.go\"}\nfinish tool-calls\nstep\ntext read\nfinish stop\n"
	p := newProject(t, script, goFiles())
	env := withPath(p.env(), bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	if _, stderr, code := p.runWith(env, "run", "read the code"); code != 0 {
		t.Fatalf("exit status %d\n%s", code, stderr)
	}
	logs, _ := filepath.Glob(filepath.Join(p.home, ".local/share/codeloop/log/*.log"))
	for _, l := range logs {
		if b, _ := os.ReadFile(l); strings.Contains(string(b), "lsp: server") {
			t.Errorf("a read started a language server in codeloop run:\n%s", b)
		}
	}
}
