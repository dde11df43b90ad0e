package server

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/client"
)

// TestDeliveryWaitsForOpenStreams checks a synchronous prompt's wait: it
// holds until each stream that carries the session's idle event and was
// open before the prompt has written one, and ignores the others.
func TestDeliveryWaitsForOpenStreams(t *testing.T) {
	d := newDelivery()
	ctx := context.Background()

	other := d.open("ses_other", nil)                   // another session's stream
	typed := d.open("", []string{client.TypePartDelta}) // no idle events
	all := d.open("", nil)                              // every event
	since := time.Now()
	late := d.open("ses_a", nil) // opened after the prompt: not waited for
	_, _, _ = other, typed, late

	var wrote atomic.Bool
	returned := make(chan bool)
	go func() {
		d.wait(ctx, "ses_a", since)
		returned <- wrote.Load()
	}()
	d.wrote(all, []string{"ses_b"}) // an idle of another session does not count
	wrote.Store(true)
	d.wrote(all, []string{"ses_a"})
	if !<-returned {
		t.Fatal("the wait returned before the open stream wrote the session's idle event")
	}

	// A stream that closes is not waited for.
	stalled := d.open("ses_c", nil)
	since = time.Now()
	go func() {
		d.wait(ctx, "ses_c", since)
		returned <- true
	}()
	d.close(stalled)
	<-returned
}
