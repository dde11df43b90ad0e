package tui

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/client"
)

// askTests builds a session that waits for approval of a bash call.
func askTests(m *Model, req client.PermissionRequest) {
	m.Update(sessionMsg{sess: goldenSession(), msgs: []client.Message{
		userMsg("msg_01", "Run the tests"),
		answer("msg_02", "msg_01", 3000, text("Let me run the tests."),
			toolCall("c1", "bash", `{"command":"go test ./...","description":"Run the unit tests"}`, client.ToolRunning, "")),
	}, status: client.SessionStatus{Type: client.StatusBusy}})
	m.Update(eventsMsg{client.PermissionAskedEvent{PermissionRequest: req}})
}

var testsAsk = client.PermissionRequest{
	ID: "per_1", SessionID: sessID, Permission: "bash", Patterns: []string{"go test ./..."}, Always: []string{"go test *"},
	Metadata: map[string]any{"command": "go test ./...", "description": "Run the unit tests"},
}

// TestPermissionBelowTranscript: the permission dialog takes the bottom
// of the transcript's room rather than covering its newest lines.
func TestPermissionBelowTranscript(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}, {200, 60}} {
		m := testModel(t, size[0], size[1])
		askTests(m, testsAsk)
		ls := lines(screen(m))
		at := func(s string) int {
			for i, l := range ls {
				if strings.Contains(l, s) {
					return i
				}
			}
			return -1
		}
		dialog := at("╭─ Permission needed")
		if dialog < 0 {
			t.Fatalf("%v: no dialog:\n%s", size, strings.Join(ls, "\n"))
		}
		for _, want := range []string{"Run the tests", "Let me run the tests.", "bash $ go test ./..."} {
			if i := at(want); i < 0 || i > dialog {
				t.Errorf("%v: %q is at line %d, the dialog at %d:\n%s", size, want, i, dialog, strings.Join(ls, "\n"))
			}
		}
	}
}

// TestPermissionSays: the dialog says what each "always" answer approves
// and where it is kept, and what a command is for and where it runs; a
// write that makes a file says Create.
func TestPermissionSays(t *testing.T) {
	dir := t.TempDir()
	withDir := testsAsk
	withDir.ID, withDir.Tool = "per_2", &client.ToolRef{MessageID: "msg_02", CallID: "c1"}
	withDir.Metadata = map[string]any{"command": "go test ./...", "description": "Run the unit tests", "workdir": filepath.Join(dir, "internal", "tui")}
	created := client.PermissionRequest{ID: "per_3", SessionID: sessID, Permission: "edit", Patterns: []string{"hello.go"}, Always: []string{"*"},
		Metadata: map[string]any{"filepath": dir + "/hello.go", "diff": "--- " + dir + "/hello.go\n+++ " + dir + "/hello.go\n@@ -0,0 +1,2 @@\n+package main\n+\n"}}
	changed := created
	changed.ID, changed.Metadata = "per_4", map[string]any{"diff": greetDiff}
	tests := []struct {
		name string
		req  client.PermissionRequest
		want []string
		not  []string
	}{
		{"bash", testsAsk, []string{
			"Run go test ./...", "Run the unit tests", "in the project's directory",
			"Allow once", "Allow always in this session: bash go test * (kept with this session)",
			"Allow always in this project: bash go test * (saved for this project)",
			"Allow always everywhere: bash go test * (saved for every project)",
		}, nil},
		{"workdir", withDir, []string{"in internal/tui"}, nil},
		{"create", created, []string{"Create hello.go", "Allow always in this project: edit * (saved"}, []string{"Change"}},
		{"change", changed, []string{"Change hello.go"}, []string{"Create"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := testModelIn(t, dir, 120, 40)
			m.Update(sessionMsg{sess: goldenSession(), msgs: []client.Message{
				userMsg("msg_01", "Run the tests"),
				answer("msg_02", "msg_01", 3000, toolCall("c1", "bash",
					`{"command":"go test ./...","workdir":"internal/tui","description":"Run the unit tests"}`, client.ToolRunning, "")),
			}, status: client.SessionStatus{Type: client.StatusBusy}})
			m.Update(eventsMsg{client.PermissionAskedEvent{PermissionRequest: tt.req}})
			got := screen(m)
			dialog := got[strings.Index(got, "╭─ Permission"):]
			for _, w := range tt.want {
				if !strings.Contains(dialog, w) {
					t.Errorf("no %q in:\n%s", w, dialog)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(dialog, w) {
					t.Errorf("%q in:\n%s", w, dialog)
				}
			}
		})
	}
}

// TestToolLineRelative: a tool line shows a path in the project relative
// to it.
func TestToolLineRelative(t *testing.T) {
	dir := t.TempDir()
	m := testModelIn(t, dir, 100, 20)
	m.Update(sessionMsg{sess: goldenSession(), msgs: []client.Message{
		userMsg("msg_01", "Read it"),
		answer("msg_02", "msg_01", 100,
			toolCallIn(dir, "c1", "read", `{"filePath":"`+dir+`/internal/x.go"}`, client.ToolCompleted, ""),
			toolCallIn(dir, "c2", "read", `{"filePath":"/etc/hosts"}`, client.ToolCompleted, "")),
	}})
	got := screen(m)
	if !strings.Contains(got, "read internal/x.go") || strings.Contains(got, dir) || !strings.Contains(got, "read /etc/hosts") {
		t.Errorf("tool lines:\n%s", got)
	}
}
