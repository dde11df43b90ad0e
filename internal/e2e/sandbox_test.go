package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// needLandlock skips the test where codeloop's sandbox cannot run: off
// Linux, or on a kernel without Landlock.
func needLandlock(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the sandbox is Linux's")
	}
	if _, err := os.Stat("/sys/kernel/security/landlock"); err != nil {
		if b, err := os.ReadFile("/sys/kernel/security/lsm"); err == nil && !strings.Contains(string(b), "landlock") {
			t.Skip("the kernel has no Landlock")
		}
	}
}

// TestRunSandboxed runs a bash command through the real binary with
// --sandbox workspace-write: the write inside the project lands, the one
// outside does not, the model is told why, and codeloop itself still saves
// the session.
func TestRunSandboxed(t *testing.T) {
	needLandlock(t)
	outside := filepath.Join(t.TempDir(), "outside.txt")
	p := newProject(t, `
step
call call_1 bash {"command":"echo in > inside.txt; echo out > `+outside+`","description":"Write two files"}
finish tool-calls input=10 output=5
step
text Done.
finish stop input=20 output=2
`, nil)
	stdout, stderr, code := p.run("run", "--auto", "--sandbox", "workspace-write", "write the files")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(p.dir, "inside.txt")); err != nil {
		t.Errorf("the write inside the project did not land: %v", err)
	}
	if _, err := os.Stat(outside); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the write outside the project went through: %v", err)
	}
	reqs := p.model.Requests()
	if len(reqs) < 2 {
		t.Fatalf("%d model requests", len(reqs))
	}
	result, ok := toolResult(t, reqs[1].Body, "call_1")
	if !ok || !strings.Contains(result, "ran in codeloop's sandbox") {
		t.Errorf("the model was not told about the sandbox:\n%s", result)
	}
	if len(p.sessions()) != 1 {
		t.Error("the session was not saved")
	}
	if out, stderr, code := p.run("debug", "sandbox"); code != 0 || !strings.Contains(out, "sandbox available: landlock ABI v") {
		t.Errorf("debug sandbox: exit %d\n%s%s", code, out, stderr)
	}
}

// TestSandboxEscapes has the model try, through the real binary, the ways
// out of the sandbox that go through files git or codeloop use later, and
// work with git inside it.
func TestSandboxEscapes(t *testing.T) {
	needLandlock(t)
	outside := t.TempDir()
	marker := filepath.Join(outside, "marker")
	victim := filepath.Join(outside, "victim")
	if err := os.WriteFile(victim, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hook := "printf '#!/bin/sh\\ntouch " + marker + "\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit"
	commands := []string{
		// (a) a hook in a copy of .git, run by the user's next commit
		"mv .git .git.bak && cp -a .git.bak .git && " + hook,
		"mv .git .git.bak; cp -a .git.bak .git; " + hook,
		// (b) the project's config
		`printf '{"sandbox":{"mode":"off"}}' > codeloop.json`,
		// (c) metadata outside the project
		"chmod 777 " + victim,
		// (d) git at work
		"echo b > b && git add b && git -c user.name=m -c user.email=m@example.com commit -qm two && git branch side && " +
			"echo c >> b && git stash -q && git checkout -qb topic",
		// (e) a protected path that did not exist
		"mkdir -p .codeloop/tools && echo x > .codeloop/tools/evil.sh",
	}
	var script strings.Builder
	for i, c := range commands {
		args, err := json.Marshal(map[string]string{"command": c, "description": "Try it"})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&script, "step\ncall call_%d bash %s\nfinish tool-calls input=10 output=5\n", i+1, args)
	}
	script.WriteString("step\ntext Done.\nfinish stop input=20 output=2\n")
	config := `{"$schema": "https://codeloop.dev/config.json"}`
	p := newProject(t, script.String(), map[string]string{"codeloop.json": config})
	stdout, stderr, code := p.run("run", "--auto", "--sandbox", "workspace-write", "try the sandbox")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	reqs := p.model.Requests()
	if len(reqs) != len(commands)+1 {
		t.Fatalf("%d model requests, want %d", len(reqs), len(commands)+1)
	}
	result := func(i int) string {
		r, ok := toolResult(t, reqs[i].Body, fmt.Sprintf("call_%d", i))
		if !ok {
			t.Fatalf("no result for call_%d", i)
		}
		return r
	}

	// (a) The user commits, unconfined: no hook of the model's runs.
	if _, err := os.Stat(filepath.Join(p.dir, ".git.bak")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf(".git was copied aside: %v", err)
	}
	p.git("-c", "user.name=u", "-c", "user.email=u@example.com", "commit", "-q", "--allow-empty", "-m", "by the user")
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a hook planted in the sandbox ran at the user's commit: %v", err)
	}
	// (b)
	if b, _ := os.ReadFile(filepath.Join(p.dir, "codeloop.json")); string(b) != config {
		t.Errorf("codeloop.json changed to %q", b)
	}
	if r := result(3); !strings.Contains(r, "Read-only file system") {
		t.Errorf("the model was not told why codeloop.json stays:\n%s", r)
	}
	// (c)
	if info, err := os.Stat(victim); err != nil || info.Mode().Perm() != 0o644 {
		t.Errorf("the mode of a file outside the project: %v, %v", info.Mode(), err)
	}
	// (d)
	if r := result(5); strings.Contains(r, "Exit code") {
		t.Errorf("git in the sandbox failed:\n%s", r)
	}
	cmd := exec.Command("git", "log", "--format=%s", "topic")
	cmd.Dir = p.dir
	if out, err := cmd.Output(); err != nil || !strings.Contains(string(out), "two") {
		t.Errorf("git log topic: %q, %v", out, err)
	}
	cmd = exec.Command("git", "stash", "list")
	cmd.Dir = p.dir
	if out, err := cmd.Output(); err != nil || !strings.Contains(string(out), "stash@{0}") {
		t.Errorf("git stash list: %q, %v", out, err)
	}
	// (e)
	if _, err := os.Lstat(filepath.Join(p.dir, ".codeloop")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf(".codeloop, which the command created, is still there: %v", err)
	}
	if r := result(6); !strings.Contains(r, "undid") || !strings.Contains(r, ".codeloop") {
		t.Errorf("the model was not told .codeloop was undone:\n%s", r)
	}
}
