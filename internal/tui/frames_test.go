package tui

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/codeloop/codeloop/internal/client/clienttest"
)

// writeLog keeps each write to the terminal apart.
type writeLog struct {
	mu     sync.Mutex
	writes [][]byte
}

func (w *writeLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes = append(w.writes, bytes.Clone(p))
	return len(p), nil
}

// since returns the writes from the i-th on.
func (w *writeLog) since(i int) [][]byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([][]byte(nil), w.writes[min(i, len(w.writes)):]...)
}

func (w *writeLog) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.writes)
}

// TestFramesAreSynchronized runs the real program on a terminal that
// reports synchronized output (mode 2026) and checks that every frame
// drawn after its answer is one write wrapped in \x1b[?2026h … \x1b[?2026l,
// and that a key redraws only what changed, not the whole screen.
func TestFramesAreSynchronized(t *testing.T) {
	const (
		begin = "\x1b[?2026h"
		end   = "\x1b[?2026l"
	)
	c, _ := liveClient(t, "", "")
	out := &writeLog{}
	in, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	defer in.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Client: c, Input: in, Output: out, Width: 80, Height: 24, NoColor: true})
	}()
	defer func() {
		cancel()
		<-done
	}()
	waitWrite := func(what string, from int, ok func(s string) bool) int {
		t.Helper()
		deadline := time.Now().Add(clienttest.Timeout)
		for {
			ws := out.since(from)
			for i, b := range ws {
				if ok(string(b)) {
					return from + i
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("no write showed %s; last writes: %q", what, ws[max(0, len(ws)-3):])
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	waitWrite("the loaded view", 0, func(s string) bool { return strings.Contains(s, "build") })
	// The terminal answers the mode 2026 query: supported, now reset.
	if _, err := w.WriteString("\x1b[?2026;2$y"); err != nil {
		t.Fatal(err)
	}
	// Keys typed until a frame comes wrapped: the answer is read
	// alongside them.
	from := out.count()
	typed := ""
	for i := 0; ; i++ {
		typed += "x"
		if _, err := w.WriteString("x"); err != nil {
			t.Fatal(err)
		}
		at := waitWrite("the typed key", from, func(s string) bool { return strings.Contains(s, "x") })
		if strings.Contains(string(out.since(at)[0]), begin) {
			from = at
			break
		}
		if i > 20 {
			t.Fatalf("no frame is synchronized after the terminal said it supports mode 2026: %q", out.since(from))
		}
		from = at + 1
	}
	// Every frame from here on is wrapped, and typing one more key
	// redraws the editor's line, not the screen.
	if _, err := w.WriteString("y"); err != nil {
		t.Fatal(err)
	}
	last := waitWrite("the key y", from, func(s string) bool { return strings.Contains(s, "y") })
	for _, b := range out.since(from)[:last-from+1] {
		s := string(b)
		if !strings.HasPrefix(s, begin) || !strings.HasSuffix(s, end) {
			t.Errorf("a frame is not one synchronized update: %q", s)
		}
	}
	frame := string(out.since(last)[0])
	if strings.Contains(frame, "build") || len(frame) > 120 {
		t.Errorf("one key redrew more than its line (%d bytes): %q", len(frame), frame)
	}
}

// TestSynchronizedQueryOverSSH checks the view asks the terminal about
// mode 2026 over SSH too, where Bubble Tea does not.
func TestSynchronizedQueryOverSSH(t *testing.T) {
	c, _ := liveClient(t, "", "")
	for _, tc := range []struct {
		ssh  string
		want bool
	}{{"/dev/pts/3", true}, {"", false}} {
		m := New(context.Background(), Options{Client: c, NoColor: true, Getenv: func(k string) string {
			if k == "SSH_TTY" {
				return tc.ssh
			}
			return ""
		}})
		asked := false
		batch, _ := m.Init()().(tea.BatchMsg)
		for _, cmd := range batch {
			switch msg := cmd().(type) {
			case tea.RawMsg:
				asked = asked || strings.Contains(fmt.Sprint(msg.Msg), "\x1b[?2026$p")
			case loadedMsg:
				if msg.events != nil {
					_ = msg.events.Close()
				}
			}
		}
		if asked != tc.want {
			t.Errorf("SSH_TTY=%q: asked about mode 2026 = %v, want %v", tc.ssh, asked, tc.want)
		}
	}
}
