package tui

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/codeloop/codeloop/internal/app"
	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/client/clienttest"
	"github.com/codeloop/codeloop/internal/client/local"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/session"
)

// storedSession stores msgs as a session of a new project, through the
// engine's import, and returns the in-process client on it.
func storedSession(tb testing.TB, msgs []client.Message) (client.Client, client.Session) {
	tb.Helper()
	ctx := context.Background()
	p := clienttest.NewProject(tb, "", "", nil)
	a, err := app.Open(ctx, app.Options{Dir: p.Dir, Dirs: p.Dirs, Getenv: p.Getenv, NoMCP: true, Version: "test"})
	if err != nil {
		tb.Fatal(err)
	}
	c := local.New(a)
	tb.Cleanup(func() {
		_ = c.Close()
		_ = a.Close()
	})
	s, err := c.CreateSession(ctx, client.CreateSessionInput{Title: "long"})
	if err != nil {
		tb.Fatal(err)
	}
	info, err := a.Sessions.Get(ctx, s.ID)
	if err != nil {
		tb.Fatal(err)
	}
	data, err := json.Marshal(msgs)
	if err != nil {
		tb.Fatal(err)
	}
	var stored []message.Message
	if err := json.Unmarshal(data, &stored); err != nil {
		tb.Fatal(err)
	}
	if _, err := a.Sessions.Import(ctx, session.Export{Info: info, Messages: stored}, session.ImportOptions{Replace: true}); err != nil {
		tb.Fatal(err)
	}
	return c, s
}

// programLoop applies messages to a view one at a time, as Bubble Tea
// does: each command runs in its goroutine and its message waits its
// turn; the view is drawn after every message.
type programLoop struct {
	m    *Model
	msgs chan tea.Msg
	done chan struct{}
}

func newProgramLoop(m *Model) *programLoop {
	return &programLoop{m: m, msgs: make(chan tea.Msg, 1024), done: make(chan struct{})}
}

func (l *programLoop) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		if b, ok := msg.(tea.BatchMsg); ok {
			for _, c := range b {
				l.run(c)
			}
			return
		}
		select {
		case l.msgs <- msg:
		case <-l.done:
		}
	}()
}

func (l *programLoop) apply(msg tea.Msg) {
	_, cmd := l.m.Update(msg)
	l.m.View()
	l.run(cmd)
}

// BenchmarkPageUpPaged10k pages up and down through a 10,000-message
// session read from a real store a page at a time, as the program runs:
// the view's commands (reading older pages, rendering ahead) run in
// their goroutines and their messages are applied between the keys, a
// key every 10 ms. A frame's time runs from its key's arrival to its
// frame drawn, waiting for the message being applied, if any; pages are
// read and merged on the way. BenchmarkPageUp10k, with every message
// loaded and nothing done in the background, shows what the view's own
// work on a key costs when nothing is ready ahead.
func BenchmarkPageUpPaged10k(b *testing.B) { pagedBench(b, 10000, 120, 40) }

// BenchmarkPageUpPaged100k is BenchmarkPageUpPaged10k on a session of
// 100,000 messages.
func BenchmarkPageUpPaged100k(b *testing.B) { pagedBench(b, 100000, 120, 40) }

// BenchmarkPageUpPaged10kSidebar is BenchmarkPageUpPaged10k at 200×60,
// where the sidebar shows.
func BenchmarkPageUpPaged10kSidebar(b *testing.B) { pagedBench(b, 10000, 200, 60) }

// pagedBench pages through a stored session of n messages at w×h.
func pagedBench(b *testing.B, n, w, h int) {
	c, s := storedSession(b, benchMessages(n))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := New(ctx, Options{Client: c, Now: func() time.Time { return clock }})
	m.Update(resize(w, h))
	l := newProgramLoop(m)
	defer close(l.done)
	l.run(m.openSessionCmd(s.ID))
	for m.sess == nil {
		l.apply(<-l.msgs)
	}
	// A key every 10 ms, stamped when it is sent (not when its timer
	// was due, which the runtime may serve a millisecond late).
	keys := make(chan time.Time)
	go func() {
		for {
			time.Sleep(10 * time.Millisecond)
			select {
			case keys <- time.Now():
			case <-l.done:
				return
			}
		}
	}()
	up, down := keyPress("pgup"), keyPress("pgdown")
	key := up
	ft := newFrameTimes(b)
	for b.Loop() {
	wait:
		for {
			select {
			case msg := <-l.msgs:
				l.apply(msg)
			case at := <-keys:
				l.apply(key)
				ft.times = append(ft.times, time.Since(at))
				break wait
			}
		}
		switch {
		case m.tr.follow:
			key = up
		case m.tr.top.entry == 0 && m.tr.top.line == 0 && !m.older:
			key = down
		}
	}
	ft.report()
}
