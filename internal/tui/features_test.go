package tui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/codeloop/codeloop/internal/client"
)

func TestParseDiff(t *testing.T) {
	lines := parseDiff(greetDiff)
	var got []string
	for _, l := range lines {
		got = append(got, string(l.kind)+itoaPair(l.old, l.new)+l.text)
	}
	want := []string{"fgreet.go", "@@@ -1,7 +1,6 @@", " 1,1package main", " 2,2", " 3,3func main() {",
		"-4,\tgreet()", "-5,\tgreet()", "+,4\tgreet() // once", " 6,5}"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("parseDiff:\n%q\nwant\n%q", got, want)
	}
	if add, del := diffStat(lines); add != 1 || del != 2 {
		t.Errorf("diffStat = +%d -%d, want +1 -2", add, del)
	}
}

func itoaPair(a, b int) string {
	if a == 0 && b == 0 {
		return ""
	}
	return strings.TrimSpace(numCell(a, 1)) + "," + strings.TrimSpace(numCell(b, 1))
}

// TestDiffLayout: below 120 columns a diff is unified; from 120 on the
// removed and added lines face each other; no line is wider than asked.
func TestDiffLayout(t *testing.T) {
	th := newTheme(false, true)
	for _, width := range []int{40, 119, 120, 200} {
		ls := renderDiff(parseDiff(greetDiff), width, width, &th)
		side := false
		for _, l := range ls {
			plain := ansi.Strip(l)
			if w := ansi.StringWidth(l); w > width {
				t.Errorf("width %d: a line is %d cells: %q", width, w, plain)
			}
			if strings.Contains(plain, "greet() // once") && strings.Contains(plain, "-     greet()") {
				side = true
			}
		}
		if side != (width >= sideBySideWidth) {
			t.Errorf("width %d: side by side %v", width, side)
		}
		if !strings.Contains(strings.Join(ls, "\n"), "\x1b[") {
			t.Errorf("width %d: the diff has no colour", width)
		}
	}
}

// TestSubagentSession: a running task call shows its child's progress;
// Ctrl+O on it opens the child's session and Esc goes back.
func TestSubagentSession(t *testing.T) {
	m := testModel(t, 100, 30)
	for _, sc := range scenarios {
		if sc.name == "todo-task" {
			sc.build(m)
		}
	}
	if s := screen(m); !strings.Contains(s, "1 of 2 tool calls done · read README.md") {
		t.Fatalf("the task call shows no progress:\n%s", s)
	}
	m.Update(keyPress("alt+up"))
	if m.selected == "" || !strings.Contains(screen(m), "Ctrl+O opens the sub-agent's session") {
		t.Fatalf("no task selected:\n%s", screen(m))
	}
	cmd := m.key(keyPress("ctrl+o"))
	if cmd == nil || len(m.parents) != 1 || m.parents[0] != sessID {
		t.Fatalf("Ctrl+O on the task: command %v, parents %v", cmd != nil, m.parents)
	}
	child := client.Session{ID: "ses_child", ParentID: sessID, Title: "Read the docs (@explore subagent)", Agent: "explore"}
	m.Update(sessionMsg{sess: child, msgs: []client.Message{{
		Info:  client.MessageInfo{ID: "msg_c0", SessionID: "ses_child", Role: client.RoleUser},
		Parts: []client.Part{{ID: "p", SessionID: "ses_child", MessageID: "msg_c0", Type: client.PartText, Text: "read the docs"}},
	}}})
	s := screen(m)
	if !strings.Contains(s, "sub-agent session · Esc goes back") || !strings.Contains(s, "read the docs") {
		t.Fatalf("the child's session:\n%s", s)
	}
	if m.agent != "build" {
		t.Errorf("opening the child changed the agent to %q", m.agent)
	}
	if cmd := m.key(keyPress("esc")); cmd == nil || len(m.parents) != 0 {
		t.Fatalf("Esc in the child: command %v, parents %v", cmd != nil, m.parents)
	}
}

// TestTodoBar: a todo list under way shows above the editor, and goes
// when every item is done.
func TestTodoBar(t *testing.T) {
	m := testModel(t, 80, 24)
	m.Update(sessionMsg{sess: goldenSession()})
	m.Update(eventsMsg{client.TodoUpdatedEvent{SessionID: sessID, Todos: []client.Todo{
		{Content: "one", Status: "completed"}, {Content: "two", Status: "in_progress"}}}})
	if s := screen(m); !strings.Contains(s, "Todo 1/2: two") {
		t.Fatalf("no todo bar:\n%s", s)
	}
	checkFrame(t, screen(m), 80, 24)
	m.Update(eventsMsg{client.TodoUpdatedEvent{SessionID: sessID, Todos: []client.Todo{
		{Content: "one", Status: "completed"}, {Content: "two", Status: "completed"}}}})
	if s := screen(m); strings.Contains(s, "Todo ") {
		t.Fatalf("the todo bar stayed:\n%s", s)
	}
}

// TestRetryCountdown: while the session retries, the status line says in
// how long and which attempt.
func TestRetryCountdown(t *testing.T) {
	m := testModel(t, 100, 24)
	m.Update(sessionMsg{sess: goldenSession()})
	next := clock.Add(7 * time.Second).UnixMilli()
	m.Update(eventsMsg{client.SessionStatusEvent{SessionID: sessID, Status: client.SessionStatus{
		Type: client.StatusRetry, Attempt: 2, Next: next, Message: "overloaded"}}})
	if s := screen(m); !strings.Contains(s, "retrying in 7s (attempt 2)") {
		t.Fatalf("status line:\n%s", s)
	}
}

// TestRevertHidesMessages: a session reverted to before a message hides
// that message and those after it.
func TestRevertHidesMessages(t *testing.T) {
	m := testModel(t, 80, 24)
	sess := goldenSession()
	sess.Revert = json.RawMessage(`{"messageID":"msg_03"}`)
	m.Update(sessionMsg{sess: sess, msgs: []client.Message{
		userMsg("msg_01", "first question"), answer("msg_02", "msg_01", 10, text("first answer")),
		userMsg("msg_03", "second question"), answer("msg_04", "msg_03", 10, text("second answer")),
	}})
	s := screen(m)
	if !strings.Contains(s, "first answer") || strings.Contains(s, "second question") || strings.Contains(s, "second answer") {
		t.Fatalf("after the revert:\n%s", s)
	}
	// A session update that ends the revert reads the session again.
	sess.Revert = nil
	_, cmd := m.Update(eventsMsg{client.SessionUpdatedEvent{Info: sess}})
	if cmd == nil {
		t.Error("ending the revert did not read the session again")
	}
}
