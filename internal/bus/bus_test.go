package bus

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestFilter(t *testing.T) {
	tests := []struct {
		name   string
		filter Filter
		event  Event
		want   bool
	}{
		{"zero filter takes all", Filter{}, Event{Type: PartDelta, SessionID: "a"}, true},
		{"session match", Filter{SessionID: "a"}, Event{Type: PartDelta, SessionID: "a"}, true},
		{"session mismatch", Filter{SessionID: "a"}, Event{Type: PartDelta, SessionID: "b"}, false},
		{"type match", Filter{Types: []string{MessageUpdated, PartUpdated}}, Event{Type: PartUpdated}, true},
		{"type mismatch", Filter{Types: []string{MessageUpdated}}, Event{Type: PartDelta}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := New(0)
			s := b.Subscribe(tt.filter, 4)
			defer s.Close()
			b.Publish(context.Background(), tt.event)
			select {
			case got := <-s.C:
				if !tt.want {
					t.Fatalf("received %+v, want nothing", got)
				}
			default:
				if tt.want {
					t.Fatal("received nothing, want the event")
				}
			}
		})
	}
}

func TestEmitNeverBlocks(t *testing.T) {
	b := New(time.Hour)
	s := b.Subscribe(Filter{}, 2)
	defer s.Close()
	for range 10 {
		b.Emit(Event{Type: PartDelta})
	}
	if got := s.Dropped(); got != 8 {
		t.Fatalf("Dropped() = %d, want 8", got)
	}
}

func TestPublishWaitsForSlowSubscriber(t *testing.T) {
	b := New(5 * time.Second)
	s := b.Subscribe(Filter{}, 1)
	defer s.Close()
	b.Publish(context.Background(), Event{Type: MessageUpdated, Properties: 1})
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.Publish(context.Background(), Event{Type: MessageUpdated, Properties: 2})
	}()
	for want := 1; want <= 2; want++ {
		e := <-s.C
		if e.Properties != want {
			t.Fatalf("got event %v, want %d", e.Properties, want)
		}
	}
	<-done
	if s.Dropped() != 0 {
		t.Fatalf("Dropped() = %d, want 0", s.Dropped())
	}
}

func TestPublishBoundedWait(t *testing.T) {
	b := New(20 * time.Millisecond)
	s := b.Subscribe(Filter{}, 1)
	defer s.Close()
	b.Publish(context.Background(), Event{Type: MessageUpdated})
	b.Publish(context.Background(), Event{Type: MessageUpdated}) // nobody reads: gives up
	if s.Dropped() != 1 {
		t.Fatalf("Dropped() = %d, want 1", s.Dropped())
	}
}

func TestClosedSubscriptionReceivesNothing(t *testing.T) {
	b := New(0)
	s := b.Subscribe(Filter{}, 1)
	s.Close()
	s.Close()
	b.Publish(context.Background(), Event{Type: MessageUpdated})
	select {
	case e := <-s.C:
		t.Fatalf("received %+v after Close", e)
	default:
	}
}

// TestNext reads a subscription with Next: drops are reported before the
// events that were kept, a waiting event wins over a done context, an
// empty subscription answers the context, and a closed one ErrClosed.
func TestNext(t *testing.T) {
	t.Parallel()
	done, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name     string
		buffer   int
		emit     int
		close    bool
		ctx      context.Context
		want     []any // Properties of each call; an int64 is a drop count, nil an error
		wantErrs []error
	}{
		{name: "events in order", buffer: 4, emit: 2, ctx: context.Background(), want: []any{0, 1}},
		{name: "drops first", buffer: 2, emit: 5, ctx: context.Background(), want: []any{int64(3), 0, 1}},
		{name: "waiting event beats done context", buffer: 2, emit: 1, ctx: done, want: []any{0, nil}, wantErrs: []error{nil, context.Canceled}},
		{name: "closed", buffer: 2, emit: 1, close: true, ctx: context.Background(), want: []any{nil}, wantErrs: []error{ErrClosed}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := New(time.Hour)
			s := b.Subscribe(Filter{}, tt.buffer)
			defer s.Close()
			for i := range tt.emit {
				b.Emit(Event{Type: PartDelta, Properties: i})
			}
			if tt.close {
				s.Close()
			}
			for i, want := range tt.want {
				ev, dropped, err := s.Next(tt.ctx)
				var wantErr error
				if i < len(tt.wantErrs) {
					wantErr = tt.wantErrs[i]
				}
				if !errors.Is(err, wantErr) {
					t.Fatalf("call %d: error %v, want %v", i, err, wantErr)
				}
				switch w := want.(type) {
				case int64:
					if dropped != w || ev.Type != "" {
						t.Fatalf("call %d: %+v, %d dropped; want %d dropped", i, ev, dropped, w)
					}
				case int:
					if ev.Properties != w || dropped != 0 {
						t.Fatalf("call %d: %+v, %d dropped; want event %d", i, ev, dropped, w)
					}
				}
			}
		})
	}
}
