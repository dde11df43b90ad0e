package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/client"
)

// TestPagingOlderMessages: a long session opens with its newest page of
// messages; paging up reads the older pages from the store as the view
// nears them, without moving what is on screen, up to the first message.
func TestPagingOlderMessages(t *testing.T) {
	c, _ := liveClient(t, "", "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := c.CreateSession(ctx, client.CreateSessionInput{Title: "long"})
	if err != nil {
		t.Fatal(err)
	}
	const n = 2*pageMessages + 50
	for i := range n {
		in := client.PromptInput{NoReply: true, Parts: []client.PartInput{client.TextInput(fmt.Sprintf("message %04d", i))}}
		if _, err := c.Prompt(ctx, s.ID, in); err != nil {
			t.Fatal(err)
		}
	}
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
