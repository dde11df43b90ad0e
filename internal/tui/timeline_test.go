package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestTimelineJumpsToAnOldMessage: the timeline lists every message the
// user sent, newest selected; picking the first, which is pages before
// what the view has read, reads on until it is there and shows it.
func TestTimelineJumpsToAnOldMessage(t *testing.T) {
	c, _ := liveClient(t, "", "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const n = 2*pageMessages + 30
	s := seedMessages(t, c, n)
	m := New(ctx, Options{Client: c, NoColor: true, SessionID: s.ID})
	m.Update(resize(80, 24))
	p := newPump(t, m)
	p.until("the view to load", m.Init(), func(m *Model) bool { return m.loaded && m.sess != nil })
	p.until("the timeline", m.slash("timeline", ""), shows("Timeline", fmt.Sprintf("#%d", n)))
	if d := m.dialog; d == nil || len(d.items) != n || d.sel != n-1 {
		t.Fatalf("the timeline lists %d messages, selected %d; want %d, the last", len(d.items), d.sel, n)
	}
	p.typed("message 0000")
	p.until("the first message shown", p.keys("enter"), func(m *Model) bool {
		return m.jump == "" && !m.loadingOlder && strings.Contains(screen(m), "message 0000")
	})
	if m.tr.follow {
		t.Error("the view still follows the newest message")
	}
}
