package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTUIDiffMarkdownCopy drives the interface in a terminal through an
// edit: the permission dialog shows the edit's diff, the transcript shows
// it after the approval, the answer's Markdown is rendered, and /copy
// puts the answer in tmux's buffer.
func TestTUIDiffMarkdownCopy(t *testing.T) {
	tm := newTmux(t)
	script := `
step
call call_1 edit {"filePath":"greet.go","oldString":"\tgreet()\n\tgreet()","newString":"\tgreet() // once"}
finish tool-calls
step
text The greeting is printed **once** now:\n\n- the second call is gone\n- the first stays
finish stop input=2000 output=10
`
	p := newProject(t, script, map[string]string{"greet.go": "package main\n\nfunc main() {\n\tgreet()\n\tgreet()\n}\n"})
	if err := os.WriteFile(filepath.Join(p.dir, "codeloop.json"), []byte(`{"permission": {"edit": "ask"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	status := filepath.Join(t.TempDir(), "status")
	// codeloop must know it runs inside tmux: pass the pane's TMUX on.
	tm.start("v", p.dir, "sleep 600", 120, 40)
	socket := strings.TrimSpace(tm.run("display-message", "-p", "-t", "v", "#{socket_path}"))
	line := strings.Replace(p.commandLine(status), "env -i", "env -i "+shellQuote("TMUX="+socket+",0,0"), 1)
	tm.run("respawn-pane", "-k", "-t", "v", line)
	tm.waitFor("v", "new session", "build")

	tm.typeText("v", "greet once")
	tm.keys("v", "Enter")
	scr := tm.waitFor("v", "Permission needed: edit", "Change greet.go", "-     greet()", "+     greet() // once")
	if b, _ := os.ReadFile(filepath.Join(p.dir, "greet.go")); strings.Contains(string(b), "// once") {
		t.Fatalf("the file changed before the edit was approved:\n%s", scr)
	}
	tm.keys("v", "y")
	scr = tm.waitFor("v", "✓ edit greet.go +1 -2", "The greeting is printed once now:", "• the second call is gone")
	// At 120 columns the diff is side by side: the removed and the added
	// line face each other on one row.
	sideBySide := false
	for _, l := range strings.Split(scr, "\n") {
		if strings.Contains(l, "-     greet()") && strings.Contains(l, "+     greet() // once") {
			sideBySide = true
		}
	}
	if !sideBySide || strings.Contains(scr, "**once**") {
		t.Fatalf("the diff is not side by side or the Markdown is not rendered:\n%s", scr)
	}
	if b, _ := os.ReadFile(filepath.Join(p.dir, "greet.go")); !strings.Contains(string(b), "greet() // once") {
		t.Fatalf("greet.go after the approval: %q", b)
	}

	tm.typeText("v", "/cop")
	tm.waitFor("v", "/copy ")
	tm.keys("v", "Tab")
	tm.waitFor("v", "> /copy")
	tm.keys("v", "Enter")
	tm.waitFor("v", "copied the last answer with the tmux buffer")
	buf, err := exec.Command("tmux", "-L", tm.socket, "show-buffer").Output()
	if err != nil || !strings.Contains(string(buf), "The greeting is printed **once** now:") {
		t.Errorf("the tmux buffer holds %q (%v)", buf, err)
	}
	tm.keys("v", "C-c")
	if code := tm.exited("v", status); code != "0" {
		t.Errorf("exit status %s", code)
	}
}
