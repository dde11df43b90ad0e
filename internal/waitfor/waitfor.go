// Package waitfor lets a test wait for a condition that another goroutine
// or process brings about, by looking at it every few milliseconds until it
// holds or a generous deadline passes. It replaces fixed sleeps: a test that
// uses it goes on as soon as what it waits for has happened, and on a slow
// machine it waits longer rather than failing.
package waitfor

import (
	"testing"
	"time"
)

// Deadline is how long Until waits before it fails the test.
const Deadline = 30 * time.Second

// interval is how often the condition is looked at.
const interval = 5 * time.Millisecond

// Until returns once cond holds; if it still does not after Deadline, it
// fails t with a message naming what was awaited.
func Until(t testing.TB, what string, cond func() bool) {
	t.Helper()
	if !Within(Deadline, cond) {
		t.Fatalf("timed out after %v waiting for %s", Deadline, what)
	}
}

// Within reports whether cond holds within d, looking at it every few
// milliseconds. It returns as soon as cond holds.
func Within(d time.Duration, cond func() bool) bool {
	if cond() {
		return true
	}
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			if cond() {
				return true
			}
		case <-deadline.C:
			return cond()
		}
	}
}
