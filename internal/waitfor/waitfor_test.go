package waitfor

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestWithin(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		after int32 // the look at which cond starts to hold; 0: never
		d     time.Duration
		want  bool
	}{
		{"at once", 1, time.Second, true},
		{"after a few looks", 4, 10 * time.Second, true},
		{"never", 0, 50 * time.Millisecond, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var looks atomic.Int32
			cond := func() bool { return looks.Add(1) == tt.after || (tt.after > 0 && looks.Load() > tt.after) }
			if got := Within(tt.d, cond); got != tt.want {
				t.Fatalf("Within = %v after %d looks, want %v", got, looks.Load(), tt.want)
			}
			if tt.want && looks.Load() != tt.after {
				t.Errorf("looked %d times, want %d: Within went on after cond held", looks.Load(), tt.after)
			}
		})
	}
}

func TestUntilReturnsWhenAnotherGoroutineActs(t *testing.T) {
	t.Parallel()
	var done atomic.Bool
	go done.Store(true)
	Until(t, "the goroutine to act", done.Load)
}
