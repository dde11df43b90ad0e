package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/codeloop/codeloop/internal/fakellm"
	"github.com/codeloop/codeloop/internal/llm"
)

// The typing scenario: keys typed into the editor while an answer
// streams at streamRate tokens a second into a session of n messages.
const (
	streamRate   = 200              // tokens (deltas) a second
	streamFor    = 20 * time.Second // how long the answer streams
	typedKeys    = 150              // keys timed while the answer streams
	idleKeys     = 100              // keys timed before it starts
	keyInterval  = 40 * time.Millisecond
	typingBudget = 16 * time.Millisecond
)

// streamingAnswer is a step that streams a token (a word) every
// 1/streamRate of a second for streamFor: paragraphs of 60 words, a
// short list and a code block between every few.
func streamingAnswer() fakellm.Step {
	s := fakellm.Step{{Type: llm.EventTextStart, ID: "s"}}
	gap := time.Second / streamRate
	for i := range int(streamFor / gap) {
		tok := fmt.Sprintf("word%d ", i)
		switch {
		case i%300 == 299:
			tok += "\n\n```go\nfunc parse(s string) (int, error) {\n\treturn strconv.Atoi(s)\n}\n```\n\n"
		case i%180 == 179:
			tok += "\n\n- the first point\n- the second point\n\n"
		case i%60 == 59:
			tok += "\n\n"
		}
		s = append(s, llm.Event{Type: llm.EventTextDelta, ID: "s", Text: tok},
			llm.Event{Type: fakellm.EventSleep, Text: gap.String()})
	}
	s = append(s, llm.Event{Type: llm.EventTextEnd, ID: "s"})
	return append(s, fakellm.Finish(llm.FinishStop, llm.Usage{Input: 1000, Output: int64(streamFor / gap)})...)
}

// typing opens a session of n messages, sends a prompt whose answer
// streams, and times each key typed meanwhile from send-keys to the
// frame that shows it in the editor.
// It returns the keys timed before the answer starts, then during it.
func typing(ctx context.Context, bin, dir string, n, w, h int) (idle, streaming []time.Duration, err error) {
	o, err := openSeeded(ctx, bin, dir, "tui-typing", n, w, h, streamingAnswer())
	if err != nil {
		return nil, nil, err
	}
	defer o.close()
	tm := o.tm
	idle, err = typeKeys(tm, idleKeys, false)
	if err != nil {
		return nil, nil, fmt.Errorf("typing with nothing streaming: %w", err)
	}
	if _, err := tm.cmd("send-keys", "-t", "v", "C-u"); err != nil {
		return nil, nil, err
	}
	if _, err := tm.cmd("send-keys", "-t", "v", "-l", "stream a long answer"); err != nil {
		return nil, nil, err
	}
	if _, err := tm.waitFor(5*time.Second, func(s string) bool { return strings.Contains(s, "> stream a long answer") }); err != nil {
		return nil, nil, err
	}
	if _, err := tm.cmd("send-keys", "-t", "v", "Enter"); err != nil {
		return nil, nil, err
	}
	if screen, err := tm.waitFor(10*time.Second, func(s string) bool { return strings.Contains(s, "word20 ") }); err != nil {
		return nil, nil, fmt.Errorf("the answer never streamed: %w\n%s", err, screen)
	}
	streaming, err = typeKeys(tm, typedKeys, true)
	if err != nil {
		return nil, nil, err
	}
	_, _ = tm.cmd("send-keys", "-t", "v", "C-c")
	return idle, streaming, nil
}

// keyLetters are typed in turn: letters no other part of the screen
// draws, so the output that has one is the frame that draws the key.
const keyLetters = "KJVXZWY"

// typeKeys types n keys into the editor through a control-mode client,
// one every keyInterval, and times each from the key written to tmux to
// the output that draws it; the editor is cleared after every
// len(keyLetters) keys. busy says the answer must be streaming
// throughout.
func typeKeys(tm *tmux, n int, busy bool) ([]time.Duration, error) {
	c, err := startControl(tm.socket, "v")
	if err != nil {
		return nil, err
	}
	defer c.close()
	var out []time.Duration
	for i := range n {
		k := i % len(keyLetters)
		if k == 0 && i > 0 {
			if err := c.key("v", "C-u"); err != nil {
				return nil, err
			}
			time.Sleep(keyInterval)
		}
		c.drain()
		t0, err := c.send("v", keyLetters[k:k+1])
		if err != nil {
			return nil, err
		}
		t1, err := c.waitOutput(keyLetters[k:k+1], 2*time.Second)
		if err != nil {
			return out, fmt.Errorf("key %d: %w", i, err)
		}
		out = append(out, t1.Sub(t0))
		time.Sleep(keyInterval)
	}
	if busy {
		screen, err := tm.cmd("capture-pane", "-p", "-t", "v")
		if err != nil {
			return out, err
		}
		if !strings.Contains(screen, "Esc Esc interrupts") {
			return out, fmt.Errorf("the answer ended before the %d keys did; lengthen streamFor", n)
		}
	}
	return out, nil
}

// catBaseline times the same path with cat in the pane: a key written to
// tmux to cat's echo of it.
func catBaseline(w, h int) ([]time.Duration, error) {
	tm := &tmux{socket: fmt.Sprintf("tui-typing-base-%d", os.Getpid())}
	defer tm.cmd("kill-server")
	if _, err := tm.cmd("-f", "/dev/null", "new-session", "-d", "-s", "v", "-x", strconv.Itoa(w), "-y", strconv.Itoa(h), "exec cat"); err != nil {
		return nil, err
	}
	return typeKeys(tm, idleKeys, false)
}

// reportTyping prints the key-to-frame figures of the typing scenario
// beside the terminal's own path.
func reportTyping(n int, idle, keys, base []time.Duration, w, h int) {
	fmt.Printf("codeloop interface, %d×%d terminal (tmux), %d messages\n\n", w, h, n)
	fmt.Println("| while | keys | key to frame p50 | p95 | max |")
	fmt.Println("| --- | --- | --- | --- | --- |")
	row := func(what string, v []time.Duration) {
		fmt.Printf("| %s | %d | %s | %s | %s |\n", what, len(v), ms(quantile(v, 0.5)), ms(quantile(v, 0.95)), ms(quantile(v, 1)))
	}
	row("nothing streams", idle)
	row(fmt.Sprintf("an answer streams at %d tokens/s", streamRate), keys)
	row("cat instead of codeloop (tmux alone)", base)
	fmt.Printf("\nBudget: p95 %s while the answer streams.\n", ms(typingBudget))
}
