package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/codeloop/codeloop/internal/client"
)

// TestHelpScrolls: /help in a short terminal shows where it is and
// scrolls to its end with PgDn, End and the arrows.
func TestHelpScrolls(t *testing.T) {
	for _, keys := range [][]string{{"pgdown", "pgdown", "pgdown"}, {"end"}, strings.Fields(strings.Repeat("down ", 80))} {
		m := testModel(t, 80, 35)
		send(m, typedKeys("/help")...)
		send(m, keyPress("enter"))
		first := screen(m)
		if !strings.Contains(first, "Enter ") || !strings.Contains(first, "of ") || strings.Contains(first, "/greet") {
			t.Fatalf("the first page:\n%s", first)
		}
		for _, k := range keys {
			send(m, keyPress(k))
		}
		got := screen(m)
		if !strings.Contains(got, "/exit") || !strings.Contains(got, "/greet") || strings.Contains(got, "Shift+Enter") {
			t.Errorf("%v: the last page:\n%s", keys, got)
		}
		send(m, keyPress("home"))
		if got := screen(m); !strings.Contains(got, "Shift+Enter") {
			t.Errorf("home: the first page:\n%s", got)
		}
	}
}

// shellSession is a session with a message and a !command after it.
func shellSession() []client.Message {
	shellUser := client.Message{
		Info: client.MessageInfo{ID: "msg_03", SessionID: sessID, Role: client.RoleUser, Agent: "build"},
		Parts: []client.Part{{ID: "msg_03_p", SessionID: sessID, MessageID: "msg_03", Type: client.PartText,
			Text: "The user ran a command.", Synthetic: true}},
	}
	return []client.Message{
		userMsg("msg_01", "Hello"),
		answer("msg_02", "msg_01", 100, text("Hi.")),
		shellUser,
		answer("msg_04", "msg_03", 0, toolCall("c1", "bash", `{"command":"ls"}`, client.ToolCompleted, "a\nb\n")),
	}
}

// TestSelectShellCommand: a !command counts as one message when selected,
// as many as a copy takes.
func TestSelectShellCommand(t *testing.T) {
	m := testModel(t, 80, 24)
	m.Update(sessionMsg{sess: goldenSession(), msgs: shellSession()})
	send(m, keyPress("ctrl+s"))
	send(m, keyPress("K"), keyPress("K"))
	bar := lines(screen(m))[23]
	_, n := m.selectedText()
	if !strings.Contains(bar, fmt.Sprintf("%d messages selected", n)) || n != 3 {
		t.Errorf("%d copied, the bar says: %q", n, bar)
	}
}

// TestUndoShellCommand: undoing a !command puts the command back in the
// editor, and the notice says so.
func TestUndoShellCommand(t *testing.T) {
	m := testModel(t, 80, 24)
	m.c = revertOnly{}
	m.Update(sessionMsg{sess: goldenSession(), msgs: shellSession()})
	m.Update(m.slash("undo", "")())
	if got := m.input.Value(); got != "!ls" {
		t.Errorf("the editor holds %q", got)
	}
	if s := screen(m); !strings.Contains(s, "the command is back in the editor") {
		t.Errorf("the notice:\n%s", s)
	}
}

// TestNoModelSaid: with no model the status line says so from the start.
func TestNoModelSaid(t *testing.T) {
	m := New(t.Context(), Options{})
	send(m, resize(100, 20), loadedMsg{agents: []client.Agent{{Name: "build", Mode: "primary"}}})
	if s := lines(screen(m))[19]; !strings.Contains(s, "no model") {
		t.Errorf("status line: %q", s)
	}
	if s := lines(screen(testModel(t, 100, 20)))[19]; strings.Contains(s, "no model") {
		t.Errorf("status line with a model: %q", s)
	}
}

// TestMarkdownShapes: headings lose their marks; a table of short cells
// keeps its own width.
func TestMarkdownShapes(t *testing.T) {
	for _, noColor := range []bool{false, true} {
		md := newMarkdown(noColor, true)
		got := stripped(strings.Join(md.render("## Second\n\nText.\n\n### Third\n\n| a | b | c |\n|---|---|---|\n| 1 | 2 | 3 |", 100, nil), "\n"))
		if strings.Contains(got, "#") || !strings.Contains(got, "Second") || !strings.Contains(got, "Third") {
			t.Errorf("noColor %v: headings:\n%s", noColor, got)
		}
		for _, l := range lines(got) {
			if cellWidth(l) > 20 {
				t.Errorf("noColor %v: a line %d cells wide: %q", noColor, cellWidth(l), l)
			}
		}
	}
}

// TestRuleNewerBelow: the rule of a view scrolled up ends in its own
// line, with no cut mark.
func TestRuleNewerBelow(t *testing.T) {
	for _, w := range []int{40, 80, 200} {
		m := testModel(t, w, 20)
		m.Update(sessionMsg{sess: goldenSession(), msgs: longSession(20)})
		send(m, keyPress("pgup"))
		rule := lines(screen(m))[17]
		if !strings.Contains(rule, "newer messages below") || strings.Contains(rule, "…") || cellWidth(rule) != w {
			t.Errorf("%d: rule %q", w, rule)
		}
	}
}

// TestFoldedBashSaysMore: a folded command output says how many lines
// it leaves out.
func TestFoldedBashSaysMore(t *testing.T) {
	m := testModel(t, 80, 24)
	out := ""
	for i := 1; i <= 10; i++ {
		out += fmt.Sprintf("line %d\n", i)
	}
	m.Update(sessionMsg{sess: goldenSession(), msgs: []client.Message{userMsg("msg_01", "Run"),
		answer("msg_02", "msg_01", 100, toolCall("c1", "bash", `{"command":"seq"}`, client.ToolCompleted, out))}})
	got := screen(m)
	if !strings.Contains(got, "… 6 more lines above · Ctrl+O shows all") || !strings.Contains(got, "line 10") || strings.Contains(got, "line 6\n") {
		t.Errorf("folded output:\n%s", got)
	}
}

// TestRenameCtrlU: Ctrl+U empties the rename field.
func TestRenameCtrlU(t *testing.T) {
	m := testModel(t, 80, 24)
	m.dialog = &listDialog{title: "Sessions", items: []listItem{{label: "Old", value: "ses_1"}},
		pick: func(*Model, listItem) tea.Cmd { return nil }, actions: sessionActions()}
	send(m, keyPress("ctrl+r"))
	if m.dialog.asking == nil {
		t.Fatal("no rename field")
	}
	send(m, typedKeys("abc")...)
	send(m, keyPress("ctrl+u"))
	send(m, typedKeys("New")...)
	if got := m.dialog.asking.value; got != "New" {
		t.Errorf("the field holds %q", got)
	}
}

// revertOnly is a client whose revert succeeds; TestLiveSession undoes
// a !command on the real one.
type revertOnly struct{ client.Client }

func (revertOnly) Revert(context.Context, string, client.RevertInput) (client.Session, error) {
	return client.Session{}, nil
}

// TestNoScrollJump: while the user has scrolled up, an answer streaming
// below moves nothing on screen; the rule says new output came below.
func TestNoScrollJump(t *testing.T) {
	m := testModel(t, 80, 24)
	m.Update(sessionMsg{sess: goldenSession(), msgs: longSession(30), status: client.SessionStatus{Type: client.StatusBusy}})
	send(m, keyPress("pgup"), keyPress("pgup"))
	before := lines(screen(m))
	if !strings.Contains(before[21], "newer messages below") {
		t.Fatalf("rule: %q", before[21])
	}
	part := client.Part{ID: "prt_z", SessionID: sessID, MessageID: "msg_zz", Type: client.PartText, Time: &client.PartTime{Start: 1}}
	m.Update(eventsMsg{
		client.MessageUpdatedEvent{Info: client.MessageInfo{ID: "msg_zz", SessionID: sessID, Role: client.RoleAssistant}},
		client.PartUpdatedEvent{Part: part},
	})
	for i := range 50 {
		m.Update(eventsMsg{client.PartDeltaEvent{SessionID: sessID, MessageID: "msg_zz", PartID: "prt_z", Field: "text",
			Delta: fmt.Sprintf("word %d\n\n", i)}})
		after := lines(screen(m))
		for j := 1; j < 21; j++ {
			if after[j] != before[j] {
				t.Fatalf("delta %d moved line %d: %q, was %q", i, j, after[j], before[j])
			}
		}
		if !strings.Contains(after[21], "new output below") {
			t.Fatalf("rule: %q", after[21])
		}
	}
	for i := 0; i < 30 && !m.tr.follow; i++ {
		send(m, keyPress("pgdown"))
	}
	s := lines(screen(m))
	if strings.Contains(s[21], "below") || !strings.Contains(strings.Join(s, "\n"), "word 49") {
		t.Errorf("at the end:\n%s", strings.Join(s, "\n"))
	}
}
