//go:build unix

package tui

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/client/clienttest"
)

// TestRunEndsOnHangup: SIGHUP ends the view in order and says so.
func TestRunEndsOnHangup(t *testing.T) {
	c, _ := liveClient(t, "", "")
	var out syncBuffer
	in, w, _ := os.Pipe()
	defer w.Close()
	defer in.Close()
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), Options{Client: c, Input: in, Output: &out, Width: 80, Height: 24, NoColor: true})
	}()
	// Run listens for SIGHUP before it draws anything.
	deadline := time.Now().Add(clienttest.Timeout)
	for !strings.Contains(out.String(), "build") {
		if time.Now().After(deadline) {
			t.Fatalf("the view never drew: %q", tail(out.String()))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, ErrHangup) {
			t.Errorf("Run: %v, want ErrHangup", err)
		}
	case <-time.After(clienttest.Timeout):
		t.Fatal("Run did not end on SIGHUP")
	}
	if !strings.Contains(out.String(), "\x1b[?1049l") {
		t.Errorf("the alternate screen was not left: %q", tail(out.String()))
	}
}
