// Package bus carries events from the session engine to whoever watches it:
// the run command, the TUI, the HTTP event stream.
//
// Publishing comes in two kinds. Emit is lossy and never blocks: it is for
// high-rate deltas, and a subscriber that cannot keep up misses some.
// Publish is for structural events (a part ended, a message was updated, a
// permission is asked) and waits, up to a bound, for each subscriber to take
// the event. Subscribers may filter by session and by event type.
//
// It imports nothing of codeloop's; every other package may import it.
package bus

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// Event names, as OpenCode's so that clients of either read both.
const (
	SessionCreated     = "session.created"
	SessionUpdated     = "session.updated"
	SessionDeleted     = "session.deleted"
	SessionStatus      = "session.status"
	SessionError       = "session.error"
	SessionCompacted   = "session.compacted"
	SessionIdle        = "session.idle"
	TurnEnded          = "session.turn.ended" // codeloop's: why a turn ended
	MessageUpdated     = "message.updated"
	MessageRemoved     = "message.removed"
	PartUpdated        = "message.part.updated"
	PartDelta          = "message.part.delta"
	PartRemoved        = "message.part.removed"
	PermissionAsked    = "permission.asked"
	PermissionReplied  = "permission.replied"
	QuestionAsked      = "question.asked"
	QuestionReplied    = "question.replied"
	QuestionRejected   = "question.rejected"
	TodoUpdated        = "todo.updated"
	CommandExecuted    = "command.executed"
	MCPToolsChanged    = "mcp.tools.changed"
	FileEdited         = "file.edited"
	InstallationUpdate = "installation.updated"
)

// Event is one published occurrence. Properties holds a value of the type
// the event's name stands for.
type Event struct {
	Type       string `json:"type"`
	SessionID  string `json:"sessionID,omitempty"`
	Properties any    `json:"properties"`
}

// Filter selects the events a subscription receives. Zero fields select
// everything.
type Filter struct {
	SessionID string   // only events of this session
	Types     []string // only events with one of these names
}

func (f Filter) match(e Event) bool {
	if f.SessionID != "" && e.SessionID != f.SessionID {
		return false
	}
	if len(f.Types) == 0 {
		return true
	}
	for _, t := range f.Types {
		if t == e.Type {
			return true
		}
	}
	return false
}

// DefaultWait bounds how long Publish waits for one subscriber.
const DefaultWait = 2 * time.Second

// Bus delivers events to subscriptions. The zero value is not usable; call
// New.
type Bus struct {
	wait time.Duration

	mu   sync.RWMutex
	subs map[*Subscription]struct{}
}

// New returns a bus whose Publish waits at most wait for each subscriber
// (DefaultWait when wait is zero).
func New(wait time.Duration) *Bus {
	if wait <= 0 {
		wait = DefaultWait
	}
	return &Bus{wait: wait, subs: make(map[*Subscription]struct{})}
}

// Subscription receives the events that match its filter on C until Close.
type Subscription struct {
	C <-chan Event

	ch      chan Event
	filter  Filter
	bus     *Bus
	once    sync.Once
	done    chan struct{}
	dropped atomic.Int64

	mu       sync.Mutex // serialises Next
	reported int64      // drops Next has reported
}

// ErrClosed is what Next returns once the subscription is closed.
var ErrClosed = errors.New("the subscription is closed")

// Subscribe returns a subscription with room for buffer undelivered events.
func (b *Bus) Subscribe(f Filter, buffer int) *Subscription {
	if buffer < 1 {
		buffer = 1
	}
	ch := make(chan Event, buffer)
	s := &Subscription{C: ch, ch: ch, filter: f, bus: b, done: make(chan struct{})}
	b.mu.Lock()
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	return s
}

// Close ends the subscription. C is not closed, so a reader blocked on it
// should also watch its own context; Close is safe to call more than once.
func (s *Subscription) Close() {
	s.once.Do(func() {
		s.bus.mu.Lock()
		delete(s.bus.subs, s)
		s.bus.mu.Unlock()
		close(s.done)
	})
}

// Dropped reports how many events the subscription missed because it was
// full.
func (s *Subscription) Dropped() int64 { return s.dropped.Load() }

// Next waits for the subscription's next event. When events were dropped
// since it last said so, it first returns how many, with no event. An
// event already waiting wins over a done ctx; once the subscription is
// closed, Next returns ErrClosed.
func (s *Subscription) Next(ctx context.Context) (Event, int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.done:
		return Event{}, 0, ErrClosed
	default:
	}
	if d := s.dropped.Load(); d > s.reported {
		n := d - s.reported
		s.reported = d
		return Event{}, n, nil
	}
	select {
	case ev := <-s.ch:
		return ev, 0, nil
	default:
	}
	select {
	case ev := <-s.ch:
		return ev, 0, nil
	case <-s.done:
		return Event{}, 0, ErrClosed
	case <-ctx.Done():
		return Event{}, 0, ctx.Err()
	}
}

func (b *Bus) matching(e Event) []*Subscription {
	b.mu.RLock()
	defer b.mu.RUnlock()
	var out []*Subscription
	for s := range b.subs {
		if s.filter.match(e) {
			out = append(out, s)
		}
	}
	return out
}

// Emit delivers e to every matching subscription that has room and drops it
// for the others. It never blocks.
func (b *Bus) Emit(e Event) {
	for _, s := range b.matching(e) {
		select {
		case s.ch <- e:
		default:
			s.dropped.Add(1)
		}
	}
}

// Publish delivers e to every matching subscription, waiting up to the bus's
// bound for each one that is full. It gives up early when ctx is done. A
// subscription that stays full past the bound misses the event.
func (b *Bus) Publish(ctx context.Context, e Event) {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for _, s := range b.matching(e) {
		select {
		case s.ch <- e:
			continue
		default:
		}
		if timer == nil {
			timer = time.NewTimer(b.wait)
		} else {
			timer.Reset(b.wait)
		}
		select {
		case s.ch <- e:
		case <-s.done:
		case <-ctx.Done():
			s.dropped.Add(1)
		case <-timer.C:
			s.dropped.Add(1)
		}
	}
}
