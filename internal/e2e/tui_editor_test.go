package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTUIEditorCompose: Ctrl+G composes the message in $EDITOR; an editor
// that exits at once hands back a view that still draws (five times in a
// row), with the editor's text in the input, and Enter sends it.
func TestTUIEditorCompose(t *testing.T) {
	tm := newTmux(t)
	var script string
	for i := range 5 {
		script += fmt.Sprintf("step\ntext Answer %d received.\nfinish stop input=1000 output=10\n", i)
	}
	p := newProject(t, script, nil)
	editor := filepath.Join(t.TempDir(), "ed.sh")
	if err := os.WriteFile(editor, []byte("#!/bin/sh\nn=$(cat \"$1\" | wc -l)\nprintf 'composed in the editor, draft %s' \"$n\" > \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	status := filepath.Join(t.TempDir(), "status")
	tm.start("e", p.dir, "sleep 600", 100, 30)
	line := strings.Replace(p.commandLine(status), "env -i", "env -i "+shellQuote("EDITOR="+editor), 1)
	tm.run("respawn-pane", "-k", "-t", "e", line)
	tm.waitFor("e", "build")
	for i := range 5 {
		tm.keys("e", "C-g")
		tm.waitFor("e", "> composed in the editor, draft 0")
		tm.keys("e", "Enter")
		tm.waitFor("e", fmt.Sprintf("Answer %d received.", i))
	}
	tm.keys("e", "C-c")
	if code := tm.exited("e", status); code != "0" {
		t.Errorf("exit status %s", code)
	}
}
