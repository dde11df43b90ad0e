package e2e

import (
	"path/filepath"
	"testing"
)

// TestTUIAsksTrust opens the interface on a project whose own settings hold
// a hook: before the view opens, codeloop says what the project's files
// would run and asks whether to trust it: details lists the hook, not now
// keeps it untrusted, trust trusts it.
func TestTUIAsksTrust(t *testing.T) {
	tm := newTmux(t)
	p := newProject(t, "", nil)
	p.write(map[string]string{".claude/settings.json": `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "true"}]}]}}`})
	status := filepath.Join(t.TempDir(), "status")

	tm.start("no", p.dir, p.commandLine(status+"1"), 100, 30)
	tm.waitFor("no", "1 hook", "[t]rust, [n]ot now, [d]etails")
	tm.typeText("no", "d")
	tm.keys("no", "Enter")
	tm.waitFor("no", "not trusted", "hook SessionStart: true (.claude/settings.json:1)")
	tm.typeText("no", "n")
	tm.keys("no", "Enter")
	tm.waitFor("no", "new session")
	tm.keys("no", "C-c")
	tm.exited("no", status+"1")
	if _, _, code := p.run("trust", "--check"); code == 0 {
		t.Error("answering no trusted the project")
	}

	tm.start("yes", p.dir, p.commandLine(status+"2"), 100, 30)
	tm.waitFor("yes", "[t]rust, [n]ot now, [d]etails")
	tm.typeText("yes", "t")
	tm.keys("yes", "Enter")
	tm.waitFor("yes", "new session")
	tm.keys("yes", "C-c")
	tm.exited("yes", status+"2")
	if out, _, code := p.run("trust", "--check"); code != 0 {
		t.Errorf("answering yes did not trust the project:\n%s", out)
	}
}
