package tui

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/client/clienttest"
)

// answeredSession makes a session over c whose model answered a prompt.
func answeredSession(t *testing.T, c client.Client) client.Session {
	t.Helper()
	ctx := context.Background()
	s, err := c.CreateSession(ctx, client.CreateSessionInput{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Prompt(ctx, s.ID, client.PromptInput{Parts: []client.PartInput{client.TextInput("say hello")}}); err != nil {
		t.Fatal(err)
	}
	return s
}

// runView runs the view over c on session id with its terminal's input
// written by the test; it returns the input, what the view wrote and
// how Run ended.
func runView(t *testing.T, c client.Client, opts Options) (*os.File, *syncBuffer, chan error) {
	t.Helper()
	var out syncBuffer
	in, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close(); _ = in.Close() })
	opts.Client, opts.Input, opts.Output, opts.Width, opts.Height, opts.NoColor = c, in, &out, 80, 24, true
	done := make(chan error, 1)
	go func() { done <- Run(context.Background(), opts) }()
	return w, &out, done
}

// waitOutput waits until the view's output holds want after from.
func waitOutput(t *testing.T, out *syncBuffer, from int, want string) int {
	t.Helper()
	deadline := time.Now().Add(clienttest.Timeout)
	for {
		s := out.String()
		if i := strings.Index(s[from:], want); i >= 0 {
			return from + i + len(want)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the output never held %q: %q", want, tail(s))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRunScrollback: /scrollback leaves the alternate screen, writes the
// transcript to the normal screen and comes back to the view.
func TestRunScrollback(t *testing.T) {
	c, _ := liveClient(t, "step\ntext Hello from the model.\nfinish stop input=10 output=10\n", "")
	s := answeredSession(t, c)
	w, out, done := runView(t, c, Options{SessionID: s.ID})
	at := waitOutput(t, out, 0, "Hello from the model.")
	if _, err := w.WriteString("/scrollback"); err != nil {
		t.Fatal(err)
	}
	// The completion row shows the command was read; the typed text
	// itself may be drawn in pieces across frames. Enter follows the
	// typed keys in the terminal's input either way.
	at = waitOutput(t, out, at, "write the transcript to the terminal's scrollback")
	if _, err := w.WriteString("\r"); err != nil {
		t.Fatal(err)
	}
	// Out of the alternate screen, the transcript as plain text, back in.
	left := waitOutput(t, out, at, "\x1b[?1049l")
	at = waitOutput(t, out, left, "\x1b[?1049h")
	printed := out.String()[left : at-len("\x1b[?1049h")]
	for _, want := range []string{"codeloop ", "┃ say hello\n", "Hello from the model.\n"} {
		if !strings.Contains(printed, want) {
			t.Errorf("the scrollback lacks %q: %q", want, printed)
		}
	}
	if strings.Contains(printed, "\x1b[1m") || strings.Contains(printed, "\x1b[38") {
		t.Errorf("NO_COLOR, yet the scrollback has styles: %q", printed)
	}
	waitOutput(t, out, at, "lines of the transcript to the terminal's scrollback")
	if _, err := w.WriteString("\x04"); err != nil { // Ctrl+D quits
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
}

// TestRunScrollbackOnExit: with scrollback_on_exit, quitting writes the
// transcript after the view has left the alternate screen; without it,
// nothing follows.
func TestRunScrollbackOnExit(t *testing.T) {
	c, _ := liveClient(t, "step\ntext Hello from the model.\nfinish stop input=10 output=10\n", "")
	s := answeredSession(t, c)
	for _, on := range []bool{true, false} {
		w, out, done := runView(t, c, Options{SessionID: s.ID, ScrollbackOnExit: on})
		waitOutput(t, out, 0, "Hello from the model.")
		if _, err := w.WriteString("\x04"); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatalf("Run: %v", err)
		}
		o := out.String()
		left := strings.LastIndex(o, "\x1b[?1049l")
		if left < 0 {
			t.Fatalf("the alternate screen was not left: %q", tail(o))
		}
		after := o[left:]
		if got := strings.Contains(after, "┃ say hello\n") && strings.Contains(after, "Hello from the model.\n"); got != on {
			t.Errorf("scrollback_on_exit %v: after the view: %q", on, after)
		}
	}
}
