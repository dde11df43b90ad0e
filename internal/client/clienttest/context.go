package clienttest

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/client"
)

// contextUsage answers a prompt in a project with an instruction file and
// checks the context's breakdown: every part counted, the instruction
// file on its own line, the model's window and what it counted; and the
// session's details as a picker lists them.
func (s suite) contextUsage(t *testing.T) {
	rules := "# Rules\n\n" + strings.Repeat("Always write tests before code. ", 40) + "\n"
	c, _ := s.start(t, "step\ntext "+strings.Repeat("All right. ", 20)+"\nfinish stop input=900 output=60\n", "",
		map[string]string{"AGENTS.md": rules})
	ctx := ctxFor(t)
	sess := must(c.CreateSession(ctx, client.CreateSessionInput{}))(t)
	before := must(c.ContextUsage(ctx, sess.ID))(t)
	if len(before.Parts) != 0 || before.Used != 0 {
		t.Errorf("a session with no prompt has a context: %+v", before)
	}
	ev := must(c.Subscribe(ctx, client.EventFilter{SessionID: sess.ID}))(t)
	defer ev.Close()
	must(c.Prompt(ctx, sess.ID, client.PromptInput{Parts: []client.PartInput{client.TextInput("hello")}}))(t)
	until(t, ev, idle(sess.ID))

	u := must(c.ContextUsage(ctx, sess.ID))(t)
	if u.Model == nil || u.Model.String() != "fake/model" || u.Limit != 100000 {
		t.Errorf("model %v, window %d; want fake/model, 100000", u.Model, u.Limit)
	}
	if u.Used != 960 {
		t.Errorf("used %d, want the 960 tokens the model counted", u.Used)
	}
	byKind := map[string]int64{}
	var file *client.ContextPart
	for i, p := range u.Parts {
		byKind[p.Kind] += p.Tokens
		if p.Kind == client.ContextInstruction && filepath.Base(p.Name) == "AGENTS.md" {
			file = &u.Parts[i]
		}
	}
	for _, k := range []string{client.ContextSystem, client.ContextTools, client.ContextMessages} {
		if byKind[k] <= 0 {
			t.Errorf("no tokens counted for %s: %+v", k, u.Parts)
		}
	}
	if file == nil {
		t.Fatalf("AGENTS.md is not among the parts: %+v", u.Parts)
	}
	// The file's estimate: its text, headed with its path, a token per
	// four characters.
	if lo, hi := int64(len(rules)/4), int64(len(rules)/4+len(file.Name)); file.Tokens < lo || file.Tokens > hi {
		t.Errorf("AGENTS.md counts %d tokens, want %d to %d", file.Tokens, lo, hi)
	}
	list := must(c.ListSessions(ctx, client.ListSessionsOptions{Details: true}))(t)
	if len(list) != 1 || list[0].Messages != 2 || list[0].Preview != "hello" {
		t.Errorf("sessions with details: %+v; want one of 2 messages starting with hello", list)
	}
	if plain := must(c.ListSessions(ctx, client.ListSessionsOptions{}))(t); len(plain) != 1 || plain[0].Preview != "" {
		t.Errorf("sessions without details: %+v", plain)
	}
	if _, err := c.ContextUsage(ctx, "ses_missing"); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("a missing session: %v, want ErrNotFound", err)
	}
}
