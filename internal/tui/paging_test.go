package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/codeloop/codeloop/internal/client"
)

// TestPagingOlderMessages: a long session opens with its newest page of
// messages; paging up reads the older pages from the store as the view
// nears them, without moving what is on screen, up to the first message.
func TestPagingOlderMessages(t *testing.T) {
	c, _ := liveClient(t, "", "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const n = 2*pageMessages + 50
	s := seedMessages(t, c, n)
	m := New(ctx, Options{Client: c, NoColor: true, SessionID: s.ID})
	m.Update(resize(80, 24))
	p := newPump(t, m)
	p.until("the view to load", m.Init(), func(m *Model) bool { return m.loaded && m.sess != nil })
	if got := len(m.msgs); got != pageMessages {
		t.Fatalf("%d messages read at the start, want the newest %d", got, pageMessages)
	}
	if !shows(fmt.Sprintf("message %04d", n-1))(m) {
		t.Fatalf("the newest message is not shown:\n%s", screen(m))
	}
	pages := 0
	for range 2000 {
		cmd := p.keys("pgup")
		shown := screen(m)
		p.run(cmd)
		if m.loadingOlder {
			pages++
			p.until("an older page", nil, func(m *Model) bool { return !m.loadingOlder })
			if after := screen(m); after != shown {
				t.Fatalf("the screen moved when a page was read:\nbefore:\n%s\nafter:\n%s", shown, after)
			}
		}
		if shows("message 0000")(m) {
			break
		}
	}
	if pages < 2 {
		t.Errorf("%d older pages read, want 2", pages)
	}
	if !shows("message 0000")(m) || len(m.msgs) != n {
		t.Fatalf("paged to the top: %d of %d messages read:\n%s", len(m.msgs), n, screen(m))
	}
}

// seedMessages stores a session of n messages of the user's, "message
// 0000" onwards.
func seedMessages(t *testing.T, c client.Client, n int) client.Session {
	t.Helper()
	ctx := context.Background()
	s, err := c.CreateSession(ctx, client.CreateSessionInput{Title: "long"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		in := client.PromptInput{NoReply: true, Parts: []client.PartInput{client.TextInput(fmt.Sprintf("message %04d", i))}}
		if _, err := c.Prompt(ctx, s.ID, in); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// pager runs a view's commands synchronously, as a program would but in
// an order the test chooses: pages of older messages and rendered lines
// are held back until released, so keys can come faster than they.
type pager struct {
	t     *testing.T
	m     *Model
	hold  bool
	pages []olderMsg
	jobs  []renderedMsg
	reads int
}

func (p *pager) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			p.run(c)
		}
	case olderMsg:
		p.reads++
		if p.hold {
			p.pages = append(p.pages, msg)
			return
		}
		p.apply(msg)
	case renderedMsg:
		if p.hold {
			p.jobs = append(p.jobs, msg)
			return
		}
		p.apply(msg)
	case sessionMsg, newerMsg, scanMsg, jumpMsg:
		p.apply(msg)
	}
}

func (p *pager) apply(msg tea.Msg) {
	_, cmd := p.m.Update(msg)
	p.run(cmd)
}

func (p *pager) key(k string) {
	_, cmd := p.m.Update(keyPress(k))
	p.run(cmd)
}

// release applies what was held back, oldest first.
func (p *pager) release() {
	pages, jobs := p.pages, p.jobs
	p.pages, p.jobs = nil, nil
	for _, j := range jobs {
		p.apply(j)
	}
	for _, pg := range pages {
		p.apply(pg)
	}
}

// openPaged opens session s as the view does, with its newest page; what
// follows is held back.
func openPaged(t *testing.T, c client.Client, s client.Session, w, h int) *pager {
	t.Helper()
	m := New(context.Background(), Options{Client: c, NoColor: true})
	m.Update(resize(w, h))
	p := &pager{t: t, m: m, hold: true}
	p.run(m.openSessionCmd(s.ID))
	if m.sess == nil || len(m.msgs) != pageMessages {
		t.Fatalf("opened with %d messages", len(m.msgs))
	}
	return p
}

// messagesShown returns the numbers of the messages on screen, from the
// top.
func messagesShown(m *Model) []int {
	var out []int
	for _, l := range strings.Split(screen(m), "\n") {
		var n int
		if i := strings.Index(l, "message "); i >= 0 {
			if _, err := fmt.Sscanf(l[i:], "message %d", &n); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// checkAllOnce fails unless the transcript holds messages 0 to n-1,
// each once, in order.
func checkAllOnce(t *testing.T, m *Model, n int) {
	t.Helper()
	var got []string
	for _, e := range m.tr.entries {
		if u, ok := e.(*userEntry); ok {
			got = append(got, strings.Join(u.texts, ""))
		}
	}
	for i := range max(n, len(got)) {
		want := fmt.Sprintf("message %04d", i)
		if i >= len(got) || got[i] != want {
			t.Fatalf("the transcript's message %d is not %q (%d messages, %d wanted)", i, want, len(got), n)
		}
	}
}

// TestOlderPageOfAReopenedViewIsDropped: a page read for the view as it
// was before the session was read again (events lost) is not put before
// the new view, where it would leave a gap: paging up then shows every
// message once, in order.
func TestOlderPageOfAReopenedViewIsDropped(t *testing.T) {
	c, _ := liveClient(t, "", "")
	const n = 4*pageMessages + 50
	p := openPaged(t, c, seedMessages(t, c, n), 80, 24)
	m := p.m
	p.hold = false
	p.release()
	for len(m.msgs) < 3*pageMessages {
		p.key("pgup")
	}
	// The fourth page is out when the session is read again; the page
	// the new view reads comes in after it.
	p.hold = true
	for !m.loadingOlder {
		p.key("pgup")
	}
	p.run(m.reload())
	p.hold = false
	p.release()
	for range 1000 {
		if shows("message 0000")(m) {
			break
		}
		p.key("pgup")
	}
	checkAllOnce(t, m, n)
}

// TestFastPageUpReachesFirstMessage: with keys coming faster than the
// pages and the rendered lines, paging up reaches the first message
// without a jump, a page merged keeps the screen as it was, and every
// message is read once, in order.
func TestFastPageUpReachesFirstMessage(t *testing.T) {
	c, _ := liveClient(t, "", "")
	const n = 3*pageMessages + 50
	p := openPaged(t, c, seedMessages(t, c, n), 80, 24)
	m := p.m
	lowest := n
	for i := range 2000 {
		shown := messagesShown(m)
		if len(shown) == 0 {
			t.Fatalf("key %d: no message on screen:\n%s", i, screen(m))
		}
		if shown[len(shown)-1] < lowest-1 {
			t.Fatalf("key %d: the screen jumped over messages: the lowest seen was %d, now it shows %v", i, lowest, shown)
		}
		lowest = min(lowest, shown[0])
		if lowest == 0 {
			break
		}
		if i%3 == 2 {
			before := screen(m)
			p.release()
			if after := screen(m); after != before {
				t.Fatalf("key %d: the screen moved when pages came in:\nbefore:\n%s\nafter:\n%s", i, before, after)
			}
		}
		p.key("pgup")
	}
	if lowest != 0 {
		t.Fatalf("paging up stopped at message %d", lowest)
	}
	p.release()
	checkAllOnce(t, m, n)
	if want := (n - pageMessages + pageMessages - 1) / pageMessages; p.reads != want {
		t.Errorf("%d older pages read, want %d", p.reads, want)
	}
}

// TestPrependKeepsView: putting older entries before the view keeps the
// same lines on screen.
func TestPrependKeepsView(t *testing.T) {
	th := newTheme(true, true)
	tr, _ := longTranscript(300)
	tr.entries = tr.entries[100:]
	tr.stale = true
	tr.scroll(-50, 40, 10, &th, 0)
	before := strings.Join(tr.view(40, 10, &th, 0), "\n")
	older, _ := longTranscript(100)
	tr.prepend(older.entries)
	if after := strings.Join(tr.view(40, 10, &th, 0), "\n"); after != before {
		t.Errorf("the view moved:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if len(tr.entries) != 300 || tr.entries[0].key() != "msg_000000/" {
		t.Errorf("%d entries, first %s", len(tr.entries), tr.entries[0].key())
	}
}
