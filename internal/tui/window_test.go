package tui

import (
	"context"
	"fmt"
	"slices"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/codeloop/codeloop/internal/client"
)

// TestWindowDropsFarPages: paging from the end of a long session to its
// first message and back holds a bounded window of messages: the pages
// far below the view are dropped on the way up and read again on the way
// down, and the screen never skips or repeats a message. A message stored
// while the pages after the view are dropped shows once the view reaches
// the end, and the end key reads the session's newest page again.
func TestWindowDropsFarPages(t *testing.T) {
	c, _ := liveClient(t, "", "")
	const n = 7*pageMessages + 30
	s := seedMessages(t, c, n)
	p := openPaged(t, c, s, 80, 24)
	p.hold = false
	p.release()
	m := p.m
	most, dropped := 0, false

	// walk presses k until done holds, checking that each screen follows
	// on from the one before.
	walk := func(k string, done func([]int) bool) {
		t.Helper()
		prev := messagesShown(m)
		for i := range 20000 {
			p.key(k)
			most = max(most, len(m.msgs))
			dropped = dropped || len(m.newer) > 0
			shown := messagesShown(m)
			if len(shown) == 0 {
				t.Fatalf("%s %d: no message on screen:\n%s", k, i, screen(m))
			}
			for j := 1; j < len(shown); j++ {
				if shown[j] != shown[j-1]+1 {
					t.Fatalf("%s %d: the screen skips messages: %v", k, i, shown)
				}
			}
			if k == "pgup" && shown[len(shown)-1] < prev[0]-1 || k == "pgdown" && shown[0] > prev[len(prev)-1]+1 {
				t.Fatalf("%s %d: the screen jumped from %v to %v", k, i, prev, shown)
			}
			if done(shown) {
				return
			}
			prev = shown
		}
		t.Fatalf("%s never got there: %v", k, prev)
	}

	walk("pgup", func(shown []int) bool { return shown[0] == 0 })
	if !dropped || len(m.newer) == 0 || !m.tr.tail {
		t.Fatalf("at the top, no page below the view was dropped (%d messages held)", len(m.msgs))
	}
	if limit := keepMessages + pageMessages; most > limit {
		t.Fatalf("the view held %d messages, over %d", most, limit)
	}

	// A message stored meanwhile, its events arriving while it falls
	// among the dropped pages: the view does not take it in yet.
	ctx := context.Background()
	in := client.PromptInput{NoReply: true, Parts: []client.PartInput{client.TextInput(fmt.Sprintf("message %04d", n))}}
	if _, err := c.Prompt(ctx, s.ID, in); err != nil {
		t.Fatal(err)
	}
	last, err := c.Messages(ctx, s.ID, client.MessagesOptions{Limit: 1})
	if err != nil || len(last) != 1 {
		t.Fatalf("reading the new message: %v", err)
	}
	evs := eventsMsg{client.MessageUpdatedEvent{Info: last[0].Info}}
	for _, pt := range last[0].Parts {
		evs = append(evs, client.PartUpdatedEvent{Part: pt})
	}
	p.apply(evs)
	if _, ok := m.msgs[last[0].Info.ID]; ok {
		t.Fatal("a message among the dropped pages was taken in")
	}

	walk("pgdown", func(shown []int) bool { return shown[len(shown)-1] == n })
	if len(m.newer) != 0 || m.tr.tail {
		t.Errorf("at the end, %d spans are still dropped", len(m.newer))
	}
	if limit := keepMessages + pageMessages; most > limit {
		t.Fatalf("the view held %d messages, over %d", most, limit)
	}
	if !m.older {
		t.Error("at the end, the view does not know of the older pages it dropped")
	}
	ids := make([]string, 0, len(m.msgs))
	for id := range m.msgs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if ids[len(ids)-1] != last[0].Info.ID {
		t.Errorf("the newest message held is %s, want %s", ids[len(ids)-1], last[0].Info.ID)
	}

	// Up again until pages below are dropped, then the end key: the
	// session's newest page is read again.
	for range 20000 {
		if len(m.newer) > 0 {
			break
		}
		p.key("pgup")
	}
	if len(m.newer) == 0 {
		t.Fatal("paging up again dropped no page")
	}
	p.apply(tea.KeyPressMsg{Code: tea.KeyEnd, Mod: tea.ModCtrl})
	if len(m.newer) != 0 || !m.tr.follow {
		t.Fatalf("after the end key: %d spans dropped, following %v", len(m.newer), m.tr.follow)
	}
	if shown := messagesShown(m); len(shown) == 0 || shown[len(shown)-1] != n {
		t.Fatalf("the end key shows %v, want the last message %d:\n%s", shown, n, screen(m))
	}
}
