package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/client"
)

// TestSearchWholeSession: in a session longer than the pages the view
// holds, a search counts the matches of every message, read from the store
// in the background, and n and N step past the held matches to the
// messages that hold the others, reading the view's way there and back
// and dropping the pages far behind, round both ends.
func TestSearchWholeSession(t *testing.T) {
	c, _ := liveClient(t, "", "")
	ctx := context.Background()
	s, err := c.CreateSession(ctx, client.CreateSessionInput{Title: "long"})
	if err != nil {
		t.Fatal(err)
	}
	const n = 6*pageMessages + 230
	needles := map[int]bool{3: true, 250: true, n - 10: true}
	for i := range n {
		text := fmt.Sprintf("message %04d", i)
		if needles[i] {
			text += " holds the Needle"
		}
		in := client.PromptInput{NoReply: true, Parts: []client.PartInput{client.TextInput(text)}}
		if _, err := c.Prompt(ctx, s.ID, in); err != nil {
			t.Fatal(err)
		}
	}
	p := openPaged(t, c, s, 100, 24)
	p.hold = false
	p.release()
	m := p.m

	p.key("ctrl+f")
	for _, k := range "needle" {
		p.key(string(k))
	}
	p.key("enter")
	most := 0
	// step presses k and checks the bar counts want of 3 and the screen
	// shows message i's match.
	step := func(k string, want, i int) {
		t.Helper()
		p.key(k)
		most = max(most, len(m.msgs))
		st, sc := statusOf(m), screen(m)
		if !strings.Contains(st, fmt.Sprintf("%d of 3", want)) || strings.Contains(st, "searching") {
			t.Fatalf("after %s the bar says %q, want %d of 3\n%s", k, st, want, sc)
		}
		if line := fmt.Sprintf("message %04d holds the Needle", i); !strings.Contains(sc, line) {
			t.Fatalf("after %s the screen does not show %q:\n%s", k, line, sc)
		}
	}
	if st := statusOf(m); !strings.Contains(st, "1 of 3") {
		t.Fatalf("the search of the whole session counts %q, want 1 of 3", st)
	}
	reads := p.reads
	step("n", 2, 250)
	// The view holds the page that ends with the match, and the pages
	// after it are read again as it scrolls down to them.
	for range 40 {
		p.key("pgdown")
		shown := messagesShown(m)
		for j := 1; j < len(shown); j++ {
			if shown[j] != shown[j-1]+1 {
				t.Fatalf("below the match the screen skips messages: %v", shown)
			}
		}
	}
	if shown := messagesShown(m); len(shown) == 0 || shown[0] < 300 {
		t.Fatalf("PgDn from the match did not read the pages after it: %v\n%s", shown, screen(m))
	}
	step("n", 3, 3)
	if p.reads-reads > 2 {
		t.Fatalf("the jumps read %d pages of older messages, want them read whole", p.reads-reads)
	}
	if len(m.newer) == 0 || strings.Contains(screen(m), fmt.Sprintf("message %04d", n-10)) {
		t.Fatalf("at the first message the view still holds the newest pages (%d messages)", len(m.msgs))
	}
	step("n", 1, n-10) // round to the newest
	step("N", 3, 3)    // round to the oldest
	step("N", 2, 250)
	step("N", 1, n-10)
	if limit := keepMessages + 2*pageMessages; most > limit {
		t.Fatalf("the view held %d messages on the way, over %d", most, limit)
	}

	// A query only older messages hold: the bar counts them and n goes to
	// the newest of them.
	p.key("/")
	p.key("ctrl+u")
	for _, k := range "0003 holds" {
		p.key(string(k))
	}
	p.key("enter")
	if st := statusOf(m); !strings.Contains(st, "1 matches") && !strings.Contains(st, "1 of 1") {
		t.Fatalf("a match in an older message only: %q", st)
	}
	step0 := func() {
		p.key("n")
		if sc := screen(m); !strings.Contains(sc, "message 0003 holds the Needle") || !strings.Contains(statusOf(m), "1 of 1") {
			t.Fatalf("n to the only match: %q\n%s", statusOf(m), sc)
		}
	}
	step0()

	// A match whose message is gone by the time its page is read leaves
	// the view as it is.
	shown := messagesShown(m)
	m.find.scan.target, m.find.scan.jumping = "msg_gone", true
	p.apply(jumpMsg{sessionID: s.ID, seq: m.jumps, target: "msg_gone"})
	if got := messagesShown(m); !slices.Equal(got, shown) || !strings.Contains(statusOf(m), "that match is no") {
		t.Fatalf("a jump to a message gone: the view went from %v to %v\n%s", shown, got, screen(m))
	}
}

// TestTimelineReadsPages: the timeline of a session longer than a page of
// the store's reads lists every message of the user's, oldest first, read
// a page at a time.
func TestTimelineReadsPages(t *testing.T) {
	c, _ := liveClient(t, "", "")
	const n = 2*scanPage + 7
	s := seedMessages(t, c, n)
	p := openPaged(t, c, s, 100, 24)
	msg := p.m.openTimeline()()
	l, ok := msg.(listMsg)
	if !ok || l.err != nil || l.dialog == nil {
		t.Fatalf("the timeline read %#v", msg)
	}
	if got := len(l.dialog.items); got != n {
		t.Fatalf("the timeline lists %d messages, want %d", got, n)
	}
	for i, it := range l.dialog.items {
		if want := fmt.Sprintf("message %04d", i); it.label != want {
			t.Fatalf("item %d is %q, want %q", i, it.label, want)
		}
	}

	// Picking one far from the view reads its page alone.
	reads := p.reads
	p.hold = false
	p.run(l.dialog.pick(p.m, l.dialog.items[5]))
	if shown := messagesShown(p.m); !slices.Contains(shown, 5) {
		t.Fatalf("after the pick the screen shows %v, want message 5\n%s", shown, screen(p.m))
	}
	if p.reads != reads || len(p.m.msgs) > keepMessages {
		t.Fatalf("the pick read %d older pages and holds %d messages, want none and at most %d", p.reads-reads, len(p.m.msgs), keepMessages)
	}
}
