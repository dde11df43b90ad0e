package clienttest

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/client"
)

// prompt sends a message and follows the answer through the events: the
// user's message, the streamed text, the final part, the status.
func (s suite) prompt(t *testing.T) {
	c, p := s.start(t, "step\ntext Hello there, friend.\nfinish stop input=10 output=5\n", "", nil)
	ctx := ctxFor(t)
	sess := must(c.CreateSession(ctx, client.CreateSessionInput{}))(t)
	ev := must(c.Subscribe(ctx, client.EventFilter{SessionID: sess.ID}))(t)
	defer ev.Close()
	id := must(c.Prompt(ctx, sess.ID, client.PromptInput{Parts: []client.PartInput{client.TextInput("hi there")}}))(t)
	got := until(t, ev, idle(sess.ID))

	var user bool
	var busy bool
	var deltas strings.Builder
	var final string
	for _, e := range got {
		if e.Session() != sess.ID && e.Type() != client.TypeEventsDropped {
			t.Errorf("an event of session %q came through a filter for %q: %s", e.Session(), sess.ID, e.Type())
		}
		switch e := e.(type) {
		case client.MessageUpdatedEvent:
			user = user || e.Info.ID == id && e.Info.Role == client.RoleUser
		case client.SessionStatusEvent:
			busy = busy || e.Status.Type == client.StatusBusy
		case client.PartDeltaEvent:
			if e.Field == "text" {
				deltas.WriteString(e.Delta)
			}
		case client.PartUpdatedEvent:
			if e.Part.Type == client.PartText && e.Part.MessageID != id {
				final = e.Part.Text
			}
		case client.EventsDroppedEvent:
			t.Errorf("%d events were dropped", e.Count)
		}
	}
	if !user || !busy {
		t.Errorf("saw the user's message %v, a busy status %v", user, busy)
	}
	if deltas.String() != "Hello there, friend." || final != "Hello there, friend." {
		t.Errorf("streamed %q, final %q", deltas.String(), final)
	}
	msgs := must(c.Messages(ctx, sess.ID, client.MessagesOptions{}))(t)
	if len(msgs) != 2 {
		t.Fatalf("%d messages, want 2", len(msgs))
	}
	if u := msgs[0]; u.Info.ID != id || u.Parts[0].Text != "hi there" {
		t.Errorf("user message %+v", u)
	}
	a := msgs[1]
	if a.Info.Role != client.RoleAssistant || a.Info.ParentID != id || a.Info.Finish != "stop" ||
		a.Info.ProviderID != "fake" || a.Info.ModelID != "model" || a.Info.Tokens == nil || a.Info.Tokens.Input != 10 {
		t.Errorf("answer info %+v", a.Info)
	}
	text := ""
	for _, part := range a.Parts {
		if part.Type == client.PartText {
			text += part.Text
		}
	}
	if text != "Hello there, friend." {
		t.Errorf("answer %q", text)
	}
	if reqs := p.Model.Requests(); len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "hi there") {
		t.Errorf("the model received %d requests, the first without the prompt", len(reqs))
	}
	cat := must(c.Models(ctx))(t)
	if !slices.ContainsFunc(cat.Recent, func(m client.ModelRef) bool { return m.String() == "fake/model" }) {
		t.Errorf("recent models %v lack fake/model", cat.Recent)
	}
}

// emptyPrompt: a prompt without content, or for a model that does not
// exist, fails and stores nothing.
func (s suite) emptyPrompt(t *testing.T) {
	c, _ := s.start(t, "", "", nil)
	ctx := ctxFor(t)
	sess := must(c.CreateSession(ctx, client.CreateSessionInput{}))(t)
	for name, in := range map[string]client.PromptInput{
		"no parts":      {},
		"blank text":    {Parts: []client.PartInput{client.TextInput("  \n ")}},
		"unknown type":  {Parts: []client.PartInput{{Type: "video", Text: "x"}}},
		"file, no url":  {Parts: []client.PartInput{{Type: client.PartFile, Mime: "text/plain"}}},
		"unknown model": {Model: &client.ModelRef{ProviderID: "fake", ModelID: "nope"}, Parts: []client.PartInput{client.TextInput("hi")}},
	} {
		if _, err := c.Prompt(ctx, sess.ID, in); err == nil {
			t.Errorf("%s: the prompt was accepted", name)
		}
	}
	if n := len(must(c.Messages(ctx, sess.ID, client.MessagesOptions{}))(t)); n != 0 {
		t.Errorf("%d messages stored by refused prompts", n)
	}
}

// abort interrupts a streaming answer: what streamed stays, the message
// records the abort, the session goes idle.
func (s suite) abort(t *testing.T) {
	c, p := s.start(t, "step\ntext Partial answer\nhang\n", "", nil)
	ctx := ctxFor(t)
	sess := must(c.CreateSession(ctx, client.CreateSessionInput{}))(t)
	ev := must(c.Subscribe(ctx, client.EventFilter{SessionID: sess.ID}))(t)
	defer ev.Close()
	must(c.Prompt(ctx, sess.ID, client.PromptInput{Parts: []client.PartInput{client.TextInput("go")}}))(t)
	select {
	case <-p.Model.Hung():
	case <-ctx.Done():
		t.Fatal("the model never reached its hang")
	}
	until(t, ev, func(e client.Event) bool {
		d, ok := e.(client.PartDeltaEvent)
		return ok && strings.Contains(d.Delta, "answer")
	})
	st := must(c.Status(ctx))(t)
	if st[sess.ID].Type != client.StatusBusy {
		t.Errorf("status while streaming %+v, want busy", st)
	}
	if err := c.Abort(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	until(t, ev, idle(sess.ID))
	if st := must(c.Status(ctx))(t); len(st) != 0 {
		t.Errorf("status after the abort %+v, want none busy", st)
	}
	msgs := must(c.Messages(ctx, sess.ID, client.MessagesOptions{}))(t)
	a := msgs[len(msgs)-1]
	if a.Info.Error == nil || a.Info.Error.Name != "MessageAbortedError" {
		t.Errorf("answer error %+v, want MessageAbortedError", a.Info.Error)
	}
	if len(a.Parts) == 0 || !slices.ContainsFunc(a.Parts, func(p client.Part) bool { return p.Text == "Partial answer" }) {
		t.Errorf("the streamed text was not kept: %+v", a.Parts)
	}
}

// command expands a project command and sends it.
func (s suite) command(t *testing.T) {
	files := map[string]string{".opencode/command/greet.md": "---\ndescription: Greets someone\n---\nSay hello to $ARGUMENTS\n"}
	c, p := s.start(t, "step\ntext Hello Ada!\nfinish stop\n", "", files)
	ctx := ctxFor(t)
	sess := must(c.CreateSession(ctx, client.CreateSessionInput{}))(t)
	ev := must(c.Subscribe(ctx, client.EventFilter{SessionID: sess.ID}))(t)
	defer ev.Close()
	if _, err := c.Command(ctx, sess.ID, client.CommandInput{Command: "no-such-command"}); err == nil {
		t.Error("an unknown command was accepted")
	}
	id := must(c.Command(ctx, sess.ID, client.CommandInput{Command: "/greet", Arguments: "Ada"}))(t)
	until(t, ev, idle(sess.ID))
	m := must(c.Message(ctx, sess.ID, id))(t)
	if len(m.Parts) == 0 || m.Parts[0].Text != "Say hello to Ada" {
		t.Errorf("the command's message %+v", m.Parts)
	}
	if reqs := p.Model.Requests(); len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "Say hello to Ada") {
		t.Errorf("the model did not receive the expanded command")
	}
	// Nothing to compact in a new session; compacting this one is accepted.
	empty := must(c.CreateSession(ctx, client.CreateSessionInput{}))(t)
	if _, err := c.Command(ctx, empty.ID, client.CommandInput{Command: "compact"}); err == nil {
		t.Error("compacting an empty session was accepted")
	}
}

// eventsClose: the filter holds, a waiting event beats a done context,
// and Close ends Next, also a Next blocked in another goroutine.
func (s suite) eventsClose(t *testing.T) {
	c, _ := s.start(t, "", "", nil)
	ctx := ctxFor(t)
	a := must(c.CreateSession(ctx, client.CreateSessionInput{}))(t)
	b := must(c.CreateSession(ctx, client.CreateSessionInput{}))(t)
	ev := must(c.Subscribe(ctx, client.EventFilter{SessionID: a.ID, Types: []string{client.TypeSessionUpdated}}))(t)
	rename := func(id, title string) {
		t.Helper()
		must(c.UpdateSession(ctx, id, client.UpdateSessionInput{Title: &title}))(t)
	}
	rename(b.ID, "b1")
	rename(a.ID, "a1")
	e := must(ev.Next(ctx))(t)
	if u, ok := e.(client.SessionUpdatedEvent); !ok || u.Info.ID != a.ID || u.Info.Title != "a1" {
		t.Fatalf("first event %#v, want the update of a", e)
	}
	rename(a.ID, "a2")
	done, cancel := context.WithCancel(context.Background())
	cancel()
	deadline := time.Now().Add(Timeout)
	for {
		e, err := ev.Next(done)
		if err == nil {
			if u, ok := e.(client.SessionUpdatedEvent); !ok || u.Info.Title != "a2" {
				t.Fatalf("event %#v, want the update to a2", e)
			}
			break
		}
		if !errors.Is(err, context.Canceled) || time.Now().After(deadline) {
			t.Fatalf("Next with a done context: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}

	blocked := make(chan error, 1)
	go func() {
		_, err := ev.Next(context.Background())
		blocked <- err
	}()
	time.Sleep(20 * time.Millisecond)
	if err := ev.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-blocked:
		wantErr(t, "a Next blocked when the stream closed", err, client.ErrClosed)
	case <-time.After(Timeout):
		t.Fatal("Close did not end a blocked Next")
	}
	_, err := ev.Next(ctx)
	wantErr(t, "Next after Close", err, client.ErrClosed)
	if err := ev.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}

	other := must(c.Subscribe(ctx, client.EventFilter{}))(t)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = other.Next(ctx)
	wantErr(t, "Next after the client closed", err, client.ErrClosed)
}

// eventsLeak: many streams opened, read and closed leave no goroutine.
func (s suite) eventsLeak(t *testing.T) {
	c, _ := s.start(t, "", "", nil)
	ctx := ctxFor(t)
	sess := must(c.CreateSession(ctx, client.CreateSessionInput{}))(t)
	// Warm up whatever the client starts once.
	warm := must(c.Subscribe(ctx, client.EventFilter{}))(t)
	_ = warm.Close()
	settle()
	before := runtime.NumGoroutine()
	var streams []client.Events
	for range 50 {
		streams = append(streams, must(c.Subscribe(ctx, client.EventFilter{SessionID: sess.ID}))(t))
	}
	title := "x"
	must(c.UpdateSession(ctx, sess.ID, client.UpdateSessionInput{Title: &title}))(t)
	for _, ev := range streams {
		e := must(ev.Next(ctx))(t)
		if e.Type() != client.TypeSessionUpdated {
			t.Fatalf("event %s, want session.updated", e.Type())
		}
		_ = ev.Close()
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		settle()
		n := runtime.NumGoroutine()
		if n <= before {
			break
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines after closing 50 streams, %d before\n%s", n, before, buf[:runtime.Stack(buf, true)])
		}
	}
}

func settle() {
	runtime.GC()
	time.Sleep(20 * time.Millisecond)
}
