package server

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/codeloop/codeloop/internal/client"
)

// deliveryWait bounds how long a synchronous prompt waits for the event
// streams to catch up before it answers: a stalled reader delays the
// answer this long at most.
const deliveryWait = 2 * time.Second

// delivery lets a synchronous prompt answer only once the event streams
// that were open when it was sent have written the session's idle event.
// A client that prints a turn from its event stream and stops when the
// prompt's request returns (OpenCode's run --attach does) then sees every
// event of the turn: the stream writes them in order, idle last.
type delivery struct {
	mu      sync.Mutex
	changed chan struct{} // closed and replaced whenever a stream writes an idle event
	streams map[*streamMark]struct{}
}

// streamMark is one open event stream, as delivery follows it.
type streamMark struct {
	opened  time.Time
	session string // the stream's session filter; "" for every session
	idles   bool   // the stream's type filter lets session.idle through
	idled   map[string]time.Time
}

func newDelivery() *delivery {
	return &delivery{changed: make(chan struct{}), streams: map[*streamMark]struct{}{}}
}

// open registers a stream with its filter.
func (d *delivery) open(sessionID string, types []string) *streamMark {
	m := &streamMark{opened: time.Now(), session: sessionID, idled: map[string]time.Time{},
		idles: len(types) == 0 || slices.Contains(types, client.TypeSessionIdle)}
	d.mu.Lock()
	d.streams[m] = struct{}{}
	d.mu.Unlock()
	return m
}

// close forgets a stream.
func (d *delivery) close(m *streamMark) {
	d.mu.Lock()
	delete(d.streams, m)
	d.mu.Unlock()
	d.wake()
}

// wrote records that m wrote (and flushed) the idle events of sessions.
func (d *delivery) wrote(m *streamMark, sessions []string) {
	if len(sessions) == 0 {
		return
	}
	now := time.Now()
	d.mu.Lock()
	for _, id := range sessions {
		m.idled[id] = now
	}
	d.mu.Unlock()
	d.wake()
}

func (d *delivery) wake() {
	d.mu.Lock()
	close(d.changed)
	d.changed = make(chan struct{})
	d.mu.Unlock()
}

// wait returns once every stream open since before since, which carries
// the session's idle events, has written one written after since; or
// after deliveryWait, or when ctx ends.
func (d *delivery) wait(ctx context.Context, sessionID string, since time.Time) {
	timer := time.NewTimer(deliveryWait)
	defer timer.Stop()
	for {
		d.mu.Lock()
		behind := false
		for m := range d.streams {
			if m.idles && !m.opened.After(since) && (m.session == "" || m.session == sessionID) && m.idled[sessionID].Before(since) {
				behind = true
				break
			}
		}
		changed := d.changed
		d.mu.Unlock()
		if !behind {
			return
		}
		select {
		case <-changed:
		case <-timer.C:
			return
		case <-ctx.Done():
			return
		}
	}
}
