package e2e

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestRunSandboxed runs a bash command through the real binary with
// --sandbox workspace-write: the write inside the project lands, the one
// outside does not, the model is told why, and codeloop itself still saves
// the session.
func TestRunSandboxed(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the sandbox is Linux's")
	}
	if _, err := os.Stat("/sys/kernel/security/landlock"); err != nil {
		if b, err := os.ReadFile("/sys/kernel/security/lsm"); err == nil && !strings.Contains(string(b), "landlock") {
			t.Skip("the kernel has no Landlock")
		}
	}
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
