package id

import (
	"sort"
	"strings"
	"testing"
	"time"
)

func TestOrder(t *testing.T) {
	tests := []struct {
		name string
		make func(*clock) string
		less func(a, b string) bool
	}{
		{"ascending", func(c *clock) string { return format(Message, c.next(time.Now()), false) }, func(a, b string) bool { return a < b }},
		{"descending", func(c *clock) string { return format(Session, c.next(time.Now()), true) }, func(a, b string) bool { return a > b }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A clock of its own: 100,000 identifiers borrow from the
			// coming seconds, which must not show in the other tests.
			var c clock
			const n = 100_000
			ids := make([]string, n)
			for i := range ids {
				ids[i] = tt.make(&c)
			}
			seen := make(map[string]bool, n)
			for i, s := range ids {
				if seen[s] {
					t.Fatalf("duplicate identifier %s at %d", s, i)
				}
				seen[s] = true
				if i > 0 && !tt.less(ids[i-1], s) {
					t.Fatalf("identifiers out of order at %d: %s then %s", i, ids[i-1], s)
				}
			}
		})
	}
}

func TestFormat(t *testing.T) {
	for _, p := range []Prefix{Session, Message, Part, Permission, ToolOutput} {
		s := Ascending(p)
		if p == Session {
			s = Descending(p)
		}
		if err := Check(p, s); err != nil {
			t.Errorf("Check(%q, %q) = %v", p, s, err)
		}
		if !strings.HasPrefix(s, string(p)+"_") {
			t.Errorf("%q lacks prefix %q", s, p)
		}
		got, ok := Time(s)
		if !ok || time.Since(got) > time.Minute || time.Until(got) > 5*time.Second {
			t.Errorf("Time(%q) = %v, %v; want about now", s, got, ok)
		}
	}
	for _, bad := range []string{"", "msg", "ses_123", "msg_zzzzzzzzzzzzABCDEFGHIJKLMN"} {
		if Check(Message, bad) == nil {
			t.Errorf("Check(msg, %q) = nil, want an error", bad)
		}
	}
}

func TestSessionsSortNewestFirst(t *testing.T) {
	a := Descending(Session)
	time.Sleep(2 * time.Millisecond) // not a wait: ids order by millisecond, so the clock must tick between the two
	b := Descending(Session)
	ids := []string{a, b}
	sort.Strings(ids)
	if ids[0] != b {
		t.Fatalf("sorted %v, want the newer %s first", ids, b)
	}
}

func BenchmarkAscending(b *testing.B) {
	for b.Loop() {
		Ascending(Part)
	}
}
