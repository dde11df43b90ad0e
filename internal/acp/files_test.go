package acp_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/codeloop/codeloop/internal/client"
)

const readThenEdit = `
step
call call_1 read {"filePath":"a.txt"}
finish tool-calls
step
call call_2 edit {"filePath":"a.txt","oldString":"unsaved","newString":"edited"}
finish tool-calls
step
call call_3 write {"filePath":"new.txt","content":"created\n"}
finish tool-calls
step
text Done.
finish stop
`

// TestEditorFileSystem offers the editor's file system: the read sees the
// unsaved buffer, the edit changes the buffer and a new file is created
// through the editor, while the files on disk stay as they were.
func TestEditorFileSystem(t *testing.T) {
	r := newRig(t, readThenEdit, "", map[string]string{"a.txt": "saved text\n"})
	a := filepath.Join(r.project.Dir, "a.txt")
	r.ed.buffers = map[string]string{a: "unsaved text\n"}
	sess := r.newSession()
	if resp := r.prompt(sess.SessionId, sdk.TextBlock("change a.txt")); resp.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("stopReason = %q", resp.StopReason)
	}
	r.ed.mu.Lock()
	buffers, calls := r.ed.buffers, slices.Clone(r.ed.fsCalls)
	r.ed.mu.Unlock()
	if got := buffers[a]; got != "edited text\n" {
		t.Errorf("the editor's buffer holds %q", got)
	}
	if got := buffers[filepath.Join(r.project.Dir, "new.txt")]; got != "created\n" {
		t.Errorf("new.txt in the editor = %q", got)
	}
	if got := readFile(t, r.project.Dir, "a.txt"); got != "saved text\n" {
		t.Errorf("a.txt on disk = %q", got)
	}
	for _, want := range []string{"read " + a, "write " + a} {
		if !slices.Contains(calls, want) {
			t.Errorf("the editor was not asked to %s; asked %v", want, calls)
		}
	}
	var readOut string
	for _, m := range r.messages(string(sess.SessionId)) {
		for _, p := range m.Parts {
			if p.Type == client.PartTool && p.Tool == "read" && p.State != nil {
				readOut = p.State.Output
			}
		}
	}
	if !strings.Contains(readOut, "1: unsaved text") {
		t.Errorf("the read saw %q, not the unsaved buffer", readOut)
	}
}

// TestNoEditorFileSystem leaves the files on disk when the editor does not
// offer its file system.
func TestNoEditorFileSystem(t *testing.T) {
	r := newRig(t, readThenEdit, "", map[string]string{"a.txt": "unsaved text\n"})
	sess := r.newSession()
	r.prompt(sess.SessionId, sdk.TextBlock("change a.txt"))
	if got := readFile(t, r.project.Dir, "a.txt"); got != "edited text\n" {
		t.Errorf("a.txt on disk = %q", got)
	}
	if len(r.ed.fsCalls) != 0 {
		t.Errorf("the editor was asked %v", r.ed.fsCalls)
	}
}
