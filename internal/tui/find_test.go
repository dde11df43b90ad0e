package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/codeloop/codeloop/internal/client"
)

// longSession is a session of n exchanges; the first question and answer
// speak of the greeting, the others of filler.
func longSession(n int) []client.Message {
	var msgs []client.Message
	for i := range n {
		q, a := fmt.Sprintf("question %d about the weather", i), fmt.Sprintf("answer %d: it is sunny", i)
		if i == 0 {
			q, a = "where is the Greeting printed?", "The greeting is printed by greet.go, twice."
		}
		u, r := fmt.Sprintf("msg_%03d_u", i), fmt.Sprintf("msg_%03d_v", i)
		msgs = append(msgs, userMsg(u, q), answer(r, u, 10, text(a)))
	}
	return msgs
}

func typedKeys(s string) []tea.Msg {
	var out []tea.Msg
	for _, r := range s {
		out = append(out, keyPress(string(r)))
	}
	return out
}

// statusOf is the bottom line of the screen.
func statusOf(m *Model) string {
	ls := lines(screen(m))
	return ls[len(ls)-1]
}

// TestSearch: Ctrl+F opens the search bar; typing finds the query in
// the text of every loaded message, whatever its case, scrolls to the
// newest match and counts them; n and N move between matches, round the
// ends; Esc closes the bar and the view stays.
func TestSearch(t *testing.T) {
	m := testModel(t, 80, 24)
	m.Update(sessionMsg{sess: goldenSession(), msgs: longSession(20)})
	if s := screen(m); strings.Contains(s, "Greeting") {
		t.Fatalf("the first message is on screen before the search:\n%s", s)
	}
	send(m, keyPress("ctrl+f"))
	if !m.find.open || !strings.Contains(statusOf(m), "Find:") {
		t.Fatalf("Ctrl+F opened no search bar:\n%s", screen(m))
	}
	send(m, typedKeys("GREETING")...)
	s := screen(m)
	if !strings.Contains(statusOf(m), "1 of 2") || !strings.Contains(s, "The greeting is printed by greet.go") {
		t.Fatalf("after typing the query:\n%s", s)
	}
	// The newest match is drawn in the current match's colours.
	content := m.View().Content
	if !strings.Contains(content, "\x1b[1;38;2;16;16;16;48;2;242;201;76mgreeting") {
		t.Errorf("the current match is not highlighted:\n%q", content)
	}
	send(m, keyPress("enter")) // keeps the match, leaves the query
	if m.find.typing || !strings.Contains(statusOf(m), "1 of 2") {
		t.Fatalf("Enter after typing: typing %v, %s", m.find.typing, statusOf(m))
	}
	send(m, keyPress("n"))
	if st := statusOf(m); !strings.Contains(st, "2 of 2") || !strings.Contains(screen(m), "where is the Greeting printed?") {
		t.Fatalf("n did not move to the older match: %s\n%s", st, screen(m))
	}
	send(m, keyPress("n"))
	if st := statusOf(m); !strings.Contains(st, "1 of 2") {
		t.Fatalf("n on the oldest match did not go round: %s", st)
	}
	send(m, tea.KeyPressMsg{Code: 'n', Text: "N", Mod: tea.ModShift})
	if st := statusOf(m); !strings.Contains(st, "2 of 2") {
		t.Fatalf("N did not go round to the oldest match: %s", st)
	}
	before := screen(m)
	send(m, keyPress("esc"))
	after := screen(m)
	if m.find.open || strings.Contains(statusOf(m), "Find:") || !strings.Contains(statusOf(m), "build") {
		t.Fatalf("Esc did not close the bar:\n%s", after)
	}
	if strings.Contains(m.View().Content, "48;2;242;201;76m") {
		t.Error("the highlight stayed after Esc")
	}
	if lines(before)[3] != lines(after)[3] {
		t.Errorf("closing the bar moved the view:\n%s\n---\n%s", before, after)
	}
}

// TestSearchCommand: /search TEXT searches at once; a query that is not
// found says so; a session with older messages in the store says the
// rest of it is being searched.
func TestSearchCommand(t *testing.T) {
	m := testModel(t, 100, 24)
	m.Update(sessionMsg{sess: goldenSession(), msgs: longSession(pageMessages / 2)})
	if !m.older {
		t.Fatal("a full page should leave older messages to read")
	}
	m.Update(keyPress("esc"))
	send(m, typedKeys("/search sunny")...)
	send(m, keyPress("esc"), keyPress("enter")) // close the completion, run
	st := statusOf(m)
	if !m.find.open || !strings.Contains(st, fmt.Sprintf("1 of %d", pageMessages/2-1)) {
		t.Fatalf("/search sunny: %s", st)
	}
	if !strings.Contains(st, "searching the rest") {
		t.Errorf("the bar does not say the rest is being searched: %s", st)
	}
	send(m, keyPress("/"), keyPress("x"))
	if st := statusOf(m); !strings.Contains(st, "no match so far") {
		t.Errorf("a query with no match: %s", st)
	}
}

// TestSearchOpensFoldedOutput: a match inside a tool call's folded
// output opens the call, so the match is on screen.
func TestSearchOpensFoldedOutput(t *testing.T) {
	m := testModel(t, 80, 24)
	var out []string
	for i := range 40 {
		out = append(out, fmt.Sprintf("line %d", i))
	}
	out[3] = "needle in the output"
	m.Update(sessionMsg{sess: goldenSession(), msgs: []client.Message{
		userMsg("msg_01", "run it"),
		answer("msg_02", "msg_01", 10, toolCall("c1", "bash", `{"command":"make"}`, client.ToolCompleted, strings.Join(out, "\n"))),
	}})
	if strings.Contains(screen(m), "needle") {
		t.Fatalf("the folded output shows the line already:\n%s", screen(m))
	}
	send(m, keyPress("ctrl+f"))
	send(m, typedKeys("needle")...)
	if s := screen(m); !strings.Contains(s, "needle in the output") || !strings.Contains(statusOf(m), "1 of 1") {
		t.Fatalf("the match in the folded output:\n%s", s)
	}
}

// TestSearchSeesOlderPages: a page of older messages read while the bar
// is open adds its matches after the current one.
func TestSearchSeesOlderPages(t *testing.T) {
	m := testModel(t, 80, 24)
	all := longSession(3)
	m.Update(sessionMsg{sess: goldenSession(), msgs: all[2:]})
	m.older = true
	send(m, keyPress("ctrl+f"))
	send(m, typedKeys("greeting")...)
	if st := statusOf(m); !strings.Contains(st, "no match so far") {
		t.Fatalf("before the older page: %s", st)
	}
	m.loadingOlder = true
	m.Update(olderMsg{sessionID: sessID, msgs: all[:2]})
	send(m, keyPress("enter"))
	if st := statusOf(m); !strings.Contains(st, "1 of 2") || !strings.Contains(screen(m), "greet.go") {
		t.Fatalf("after the older page: %s\n%s", st, screen(m))
	}
	send(m, keyPress("n"))
	if st := statusOf(m); !strings.Contains(st, "2 of 2") || !strings.Contains(screen(m), "where is the Greeting printed?") {
		t.Fatalf("n after the older page: %s\n%s", st, screen(m))
	}
}

// TestSelectAndCopy: Ctrl+S selects the newest message; the arrows move
// the selection, Shift+Up extends it to several messages, Space marks
// one more, y copies them all, in order, and leaves selection mode.
func TestSelectAndCopy(t *testing.T) {
	m := testModel(t, 80, 24)
	m.Update(sessionMsg{sess: goldenSession(), msgs: longSession(4)})
	send(m, keyPress("ctrl+s"))
	if !m.sel.on || m.sel.cursor != "msg_003_v" || !strings.Contains(statusOf(m), "1 message selected") {
		t.Fatalf("Ctrl+S: %+v\n%s", m.sel, screen(m))
	}
	if !strings.Contains(m.View().Content, "\x1b[38;2;16;16;16;48;2;165;148;255manswer 3: it is sunny") {
		t.Errorf("the selected message is not drawn selected:\n%q", m.View().Content)
	}
	send(m, keyPress("up"))
	if m.sel.cursor != "msg_003_u" || len(m.sel.marked) != 1 || !m.sel.marked["msg_003_u"] {
		t.Fatalf("Up: %+v", m.sel)
	}
	send(m, tea.KeyPressMsg{Code: tea.KeyUp, Mod: tea.ModShift})
	if !strings.Contains(statusOf(m), "2 messages selected") {
		t.Fatalf("Shift+Up: %s", statusOf(m))
	}
	send(m, keyPress("up"), keyPress("up"), keyPress(" "))
	if !strings.Contains(statusOf(m), "3 messages selected") {
		t.Fatalf("Space: %+v %s", m.sel, statusOf(m))
	}
	_, cmd := m.Update(keyPress("y"))
	if cmd == nil || m.sel.on {
		t.Fatalf("y: command %v, still selecting %v", cmd != nil, m.sel.on)
	}
	want := "answer 1: it is sunny\n\nanswer 2: it is sunny\n\nquestion 3 about the weather"
	if m.lastCopy != want {
		t.Errorf("copied %q, want %q", m.lastCopy, want)
	}
	// Esc leaves without copying.
	send(m, keyPress("ctrl+s"), keyPress("esc"))
	if m.sel.on || !strings.Contains(statusOf(m), "build") {
		t.Errorf("Esc did not leave selection mode:\n%s", screen(m))
	}
}

// TestMouse: the wheel scrolls; a click on a message selects it and a
// Shift+click extends the selection to another; with the mouse left to
// the terminal the view neither captures nor answers it.
func TestMouse(t *testing.T) {
	m := testModel(t, 80, 24)
	m.Update(sessionMsg{sess: goldenSession(), msgs: longSession(10)})
	if m.View().MouseMode != tea.MouseModeCellMotion {
		t.Error("the view does not capture the mouse")
	}
	m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelUp, X: 5, Y: 5})
	if m.tr.follow {
		t.Fatal("the wheel did not scroll up")
	}
	m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelDown, X: 5, Y: 5})
	if !m.tr.follow {
		t.Fatal("the wheel did not scroll back down")
	}
	row := func(s string) int {
		for i, l := range lines(screen(m)) {
			if strings.Contains(l, s) {
				return i
			}
		}
		t.Fatalf("%q is not on screen:\n%s", s, screen(m))
		return -1
	}
	m.Update(tea.MouseClickMsg{Button: tea.MouseLeft, X: 3, Y: row("question 8 about")})
	if !m.sel.on || m.sel.cursor != "msg_008_u" {
		t.Fatalf("a click selected %+v", m.sel)
	}
	m.Update(tea.MouseClickMsg{Button: tea.MouseLeft, X: 3, Y: row("answer 9:"), Mod: tea.ModShift})
	if got := len(m.sel.marked); got != 4 || !m.sel.marked["msg_009_v"] || !m.sel.marked["msg_008_v"] {
		t.Fatalf("Shift+click marked %v", m.sel.marked)
	}

	off := New(m.ctx, Options{NoMouse: true, Now: m.now})
	send(off, resize(80, 24), sessionMsg{sess: goldenSession(), msgs: longSession(10)})
	if off.View().MouseMode != tea.MouseModeNone {
		t.Error("NoMouse still captures the mouse")
	}
	off.Update(tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	if !off.tr.follow {
		t.Error("NoMouse still answers the wheel")
	}
}

// TestHookNotice: a hook's notice for the session on screen shows over
// the status line and stays in the transcript; one of another session
// shows over the status line only.
func TestHookNotice(t *testing.T) {
	m := testModel(t, 100, 24)
	m.Update(sessionMsg{sess: goldenSession(), msgs: longSession(1)})
	m.Update(eventsMsg{client.HookNoticeEvent{SessionID: sessID, Event: "PostToolUse", Command: "./lint.sh", Error: true, Text: "exited with status 2: gofmt wants changes"}})
	want := `PostToolUse hook "./lint.sh" exited with status 2: gofmt wants changes`
	s := screen(m)
	if strings.Count(s, want) != 2 {
		t.Fatalf("the notice is not both in the transcript and over the status line:\n%s", s)
	}
	m.Update(expireMsg{seq: m.toast.seq})
	if s := screen(m); strings.Count(s, want) != 1 {
		t.Fatalf("the transcript lost the notice:\n%s", s)
	}
	m.Update(eventsMsg{client.HookNoticeEvent{SessionID: "ses_other", Event: "Stop", Command: "say", Text: "all done"}})
	if s := screen(m); !strings.Contains(statusOf(m), "Stop hook: all done") || strings.Count(s, "all done") != 1 {
		t.Fatalf("another session's notice:\n%s", s)
	}
}

// TestThemeOption: a theme given at start wins over the terminal's
// background.
func TestThemeOption(t *testing.T) {
	m := New(context.Background(), Options{Theme: "light"})
	m.Update(tea.BackgroundColorMsg{Color: lipgloss.Color("#000000")})
	if m.theme.name != "light" || m.themeChoice != "light" {
		t.Errorf("theme %q (choice %q), want light", m.theme.name, m.themeChoice)
	}
	p := New(context.Background(), Options{Theme: "plain"})
	if p.theme.name != "plain" {
		t.Errorf("theme %q, want plain", p.theme.name)
	}
}

// BenchmarkSearch10k types a query into the search bar over a
// 10,000-message session, a keystroke and its frame per operation: each
// keystroke searches the text of every message again and scrolls to the
// newest match.
func BenchmarkSearch10k(b *testing.B) { benchSearch(b, 10000) }

// BenchmarkSearch100k is BenchmarkSearch10k over 100,000 messages.
func BenchmarkSearch100k(b *testing.B) { benchSearch(b, 100000) }

// benchSearch types a query over a session of n messages.
func benchSearch(b *testing.B, n int) {
	m := benchSession(b, n)
	m.View()
	m.Update(keyPress("ctrl+f"))
	query := "module 4"
	i := 0
	ft := newFrameTimes(b)
	for b.Loop() {
		k := keyPress(string(query[i%len(query)]))
		if i%len(query) == 0 {
			m.find.query = ""
		}
		i++
		ft.begin()
		m.Update(k)
		m.View()
		ft.end()
	}
	ft.report()
	if len(m.find.matches) == 0 {
		b.Fatal("the search found nothing")
	}
}
