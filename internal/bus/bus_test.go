package bus

import (
	"context"
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
