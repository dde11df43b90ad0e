package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunAsksInline runs `codeloop run` on a terminal without --auto: a
// command the config asks about is put to the user, who allows it once;
// a second is rejected with a reason, which reaches the model.
func TestRunAsksInline(t *testing.T) {
	tm := newTmux(t)
	script := `
step
call call_1 bash {"command":"touch allowed.txt"}
finish tool-calls
step
call call_2 bash {"command":"touch refused.txt"}
finish tool-calls
step
text Done.
finish stop
`
	p := newProject(t, script, nil)
	p.write(map[string]string{"codeloop.json": `{"permission": {"bash": "ask"}}`})
	status := filepath.Join(t.TempDir(), "status")
	tm.start("ask", p.dir, p.commandLine(status, "run", "make the files"), 120, 30)
	tm.waitFor("ask", "codeloop asks to bash: touch allowed.txt", "[o]nce")
	tm.typeText("ask", "o")
	tm.keys("ask", "Enter")
	tm.waitFor("ask", "codeloop asks to bash: touch refused.txt")
	tm.typeText("ask", "not that one, it is read-only")
	tm.keys("ask", "Enter")
	code := tm.exited("ask", status)
	if _, err := os.Stat(filepath.Join(p.dir, "allowed.txt")); err != nil {
		t.Errorf("the command allowed once did not run: %v\n%s", err, tm.screen("ask"))
	}
	if _, err := os.Stat(filepath.Join(p.dir, "refused.txt")); err == nil {
		t.Error("the rejected command ran")
	}
	if code != "1" {
		t.Errorf("exit status %s after a rejection, want 1\n%s", code, tm.screen("ask"))
	}
	reqs := p.model.Requests()
	if len(reqs) < 3 || !strings.Contains(string(reqs[2].Body), "not that one, it is read-only") {
		t.Errorf("the reason for the rejection did not reach the model (%d requests)", len(reqs))
	}
}

// TestRunAsksInlineForSubagent puts a sub-agent's ask to the user too: it
// comes from the sub-agent's own session.
func TestRunAsksInlineForSubagent(t *testing.T) {
	tm := newTmux(t)
	script := `
step
call call_1 task {"description":"make a file","prompt":"Create child.txt.","subagent_type":"general"}
finish tool-calls
step
call call_c bash {"command":"touch child.txt"}
finish tool-calls
step
text Created.
finish stop
step
text The sub-agent created it.
finish stop
`
	p := newProject(t, script, nil)
	p.write(map[string]string{"codeloop.json": `{"permission": {"bash": "ask"}}`})
	status := filepath.Join(t.TempDir(), "status")
	tm.start("sub", p.dir, p.commandLine(status, "run", "delegate it"), 120, 30)
	tm.waitFor("sub", "codeloop asks to bash: touch child.txt")
	tm.typeText("sub", "o")
	tm.keys("sub", "Enter")
	if code := tm.exited("sub", status); code != "0" {
		t.Errorf("exit status %s\n%s", code, tm.screen("sub"))
	}
	if _, err := os.Stat(filepath.Join(p.dir, "child.txt")); err != nil {
		t.Errorf("the sub-agent's approved command did not run: %v", err)
	}
}
