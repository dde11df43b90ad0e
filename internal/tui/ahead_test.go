package tui

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/codeloop/codeloop/internal/client"
)

// settle runs cmd and the commands that follow it synchronously, feeding
// m the results of background rendering and of reads of the session;
// other messages (ticks, toasts) are dropped.
func settle(m *Model, cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			settle(m, c)
		}
	case renderedMsg, olderMsg, sessionMsg:
		_, next := m.Update(msg)
		settle(m, next)
	}
}

// openAhead opens a session of msgs, all of them loaded, in a view of
// w×h and lets the rendering ahead of the view finish.
func openAhead(t testing.TB, w, h int, msgs []client.Message) *Model {
	m := testModel(t, w, h)
	_, cmd := m.Update(sessionMsg{sess: goldenSession(), msgs: msgs})
	m.older = false
	m.View()
	settle(m, cmd)
	return m
}

// renderedNow returns the entries holding lines for the view's width and
// theme.
func renderedNow(m *Model) map[entry]bool {
	out := map[entry]bool{}
	for _, e := range m.tr.entries {
		if c := renderCacheOf(e); c != nil {
			if _, ok := c.get(m.width, m.themeTag); ok {
				out[e] = true
			}
		}
	}
	return out
}

// TestScrollFindsEntriesRendered: once the background rendering has
// caught up, a PgUp or PgDn brings on screen only entries already
// rendered, so the key's frame renders no Markdown; after a resize the
// entries are rendered again at the new width, before the keys need them.
func TestScrollFindsEntriesRendered(t *testing.T) {
	m := openAhead(t, 120, 40, benchMessages(600))
	press := func(what string, k string, n int) {
		t.Helper()
		for i := range n {
			before := renderedNow(m)
			_, cmd := m.Update(keyPress(k))
			m.View()
			for _, r := range m.tr.shownLines(m.width, m.transcriptHeight(), &m.theme, m.themeTag) {
				if r.entry >= 0 && !before[m.tr.entries[r.entry]] {
					t.Fatalf("%s, key %d: entry %s came on screen unrendered", what, i+1, m.tr.entries[r.entry].key())
				}
			}
			settle(m, cmd)
		}
	}
	press("paging up from the end", "pgup", 40)
	_, cmd := m.Update(resize(100, 40))
	m.View()
	settle(m, cmd)
	press("paging down after a resize", "pgdown", 20)
	press("paging up after a resize", "pgup", 40)
}

// TestRenderAheadMatchesView: the lines rendered in the background are
// the lines the view renders itself, for every kind of entry.
func TestRenderAheadMatchesView(t *testing.T) {
	msgs := []client.Message{
		userMsg("msg_01", "first question, with a file"),
		answer("msg_02", "msg_01", 10,
			client.Part{Type: client.PartReasoning, Text: "thinking\nabout it", Time: &client.PartTime{Start: 1, End: 2}},
			text("## Plan\n\n- **one**\n- `two`\n\n```go\nfunc main() {}\n```"),
			withMeta(toolCall("e", "edit", `{"filePath":"greet.go","oldString":"\tgreet()\n\tgreet()","newString":"\tgreet() // once"}`, client.ToolCompleted, "Edit applied successfully."),
				map[string]any{"diff": greetDiff}),
			toolCall("b", "bash", `{"command":"make"}`, client.ToolError, "boom"),
		),
	}
	msgs[0].Parts = append(msgs[0].Parts, client.Part{ID: "msg_01_q", SessionID: sessID, MessageID: "msg_01", Type: client.PartFile, Filename: "notes.txt"})
	failed := answer("msg_04", "msg_03", 10, text("partial"))
	failed.Info.Error = &client.MessageError{Name: "APIError", Data: client.MessageErrorData{Message: "overloaded"}}
	msgs = append(msgs, userMsg("msg_03", "again"), failed)
	for i := range 12 {
		u, a := fmt.Sprintf("msg_%03d_u", 100+i), fmt.Sprintf("msg_%03d_v", 100+i)
		msgs = append(msgs, userMsg(u, "more"), answer(a, u, 10, text(fmt.Sprintf("answer %d\n\n> quoted", i))))
	}
	m := openAhead(t, 100, 30, msgs)
	kinds := map[string]bool{}
	for _, e := range m.tr.entries {
		c := renderCacheOf(e)
		got, ok := c.get(m.width, m.themeTag)
		if !ok {
			continue
		}
		want := detached(e).render(m.width, &m.theme, m.themeTag)
		if !slices.Equal(got, want) {
			t.Errorf("%s rendered in the background:\n%s\nby the view:\n%s", e.key(), strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		kinds[fmt.Sprintf("%T", e)] = true
	}
	for _, k := range []string{"*tui.userEntry", "*tui.textEntry", "*tui.reasoningEntry", "*tui.toolEntry", "*tui.noteEntry"} {
		if !kinds[k] {
			t.Errorf("no %s was rendered ahead (%v)", k, kinds)
		}
	}
}

// TestRenderAheadDropsStaleLines: lines rendered from an entry that
// changed while the job was out are not kept; the entry is rendered
// again as it is now.
func TestRenderAheadDropsStaleLines(t *testing.T) {
	m := testModel(t, 80, 20)
	out := make([]string, 30)
	for i := range out {
		out[i] = fmt.Sprintf("output line %d", i)
	}
	msgs := []client.Message{userMsg("msg_001", "build it"),
		answer("msg_002", "msg_001", 10, toolCall("c", "bash", `{"command":"make"}`, client.ToolCompleted, strings.Join(out, "\n")))}
	for i := range 20 {
		u, a := fmt.Sprintf("msg_%03d_u", 100+i), fmt.Sprintf("msg_%03d_v", 100+i)
		msgs = append(msgs, userMsg(u, "more"), answer(a, u, 10, text(fmt.Sprintf("answer %d", i))))
	}
	_, job := m.Update(sessionMsg{sess: goldenSession(), msgs: msgs})
	m.View()
	tool := m.tr.find("msg_002/prt_msg_002_0").(*toolEntry)
	for job != nil && !slices.ContainsFunc(m.ahead.job.items, func(it renderItem) bool { return it.e == tool }) {
		_, job = m.Update(job())
	}
	if job == nil {
		t.Fatal("the tool call was never rendered ahead")
	}
	// The call is expanded while its folded lines are being rendered.
	m.setSelected(tool.key())
	m.toggleTool()
	_, next := m.Update(job())
	if _, ok := tool.cache.get(m.width, m.themeTag); ok {
		t.Fatal("the lines rendered before the call was expanded were kept")
	}
	settle(m, next)
	got, ok := tool.cache.get(m.width, m.themeTag)
	if !ok || !strings.Contains(strings.Join(got, "\n"), "output line 3") {
		t.Fatalf("the expanded call, rendered ahead:\n%s", strings.Join(got, "\n"))
	}
}

// TestRenderAheadRacesTheView: background jobs run while the view keeps
// scrolling and its entries change (run with -race); what ends on screen
// is what the view renders itself.
func TestRenderAheadRacesTheView(t *testing.T) {
	m := testModel(t, 120, 40)
	_, cmd := m.Update(sessionMsg{sess: goldenSession(), msgs: benchMessages(400)})
	m.older = false
	m.View()
	p := newPump(t, m)
	p.run(cmd)
	for i := range 60 {
		p.run(p.keys("pgup"))
		// Change a finished answer near the view while jobs are out.
		e := m.tr.entries[max(m.firstShown()-3, 0)]
		if te, ok := e.(*textEntry); ok {
			te.set(te.text+fmt.Sprintf("\n\nedited %d", i), false)
		}
		m.View()
		time.Sleep(time.Millisecond)
		p.drain()
	}
	p.until("the rendering to catch up", nil, func(m *Model) bool { return m.ahead.job == nil })
	got := screen(m)
	for _, e := range m.tr.entries {
		if c := renderCacheOf(e); c != nil {
			c.reset()
		}
	}
	if want := screen(m); got != want {
		t.Errorf("the screen rendered ahead:\n%s\nrendered by the view:\n%s", got, want)
	}
}

// drain applies the messages that have arrived, without waiting.
func (p *pump) drain() {
	for {
		select {
		case msg := <-p.msgs:
			if b, ok := msg.(tea.BatchMsg); ok {
				for _, c := range b {
					p.run(c)
				}
				continue
			}
			_, next := p.m.Update(msg)
			p.run(next)
		default:
			return
		}
	}
}
