package clienttest

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/client"
)

// sessions creates, lists, renames, forks and deletes sessions.
func (s suite) sessions(t *testing.T) {
	c, p := s.start(t, "", "", nil)
	ctx := ctxFor(t)
	path := must(c.Path(ctx))(t)
	if path.Directory != p.Dir {
		t.Errorf("path directory %q, want %q", path.Directory, p.Dir)
	}
	a := must(c.CreateSession(ctx, client.CreateSessionInput{Title: "alpha work"}))(t)
	b := must(c.CreateSession(ctx, client.CreateSessionInput{}))(t)
	child := must(c.CreateSession(ctx, client.CreateSessionInput{ParentID: a.ID, Title: "child"}))(t)
	if a.Title != "alpha work" || a.Directory != p.Dir || a.ID == "" || a.Time.Created == 0 {
		t.Errorf("created %+v", a)
	}
	if b.Title == "" {
		t.Error("a session without a title got no default title")
	}
	if child.ParentID != a.ID {
		t.Errorf("child's parent %q, want %q", child.ParentID, a.ID)
	}
	ids := func(list []client.Session) []string {
		var out []string
		for _, s := range list {
			out = append(out, s.ID)
		}
		return out
	}
	// Newest first.
	if got := ids(must(c.ListSessions(ctx, client.ListSessionsOptions{}))(t)); !slices.Equal(got, []string{child.ID, b.ID, a.ID}) {
		t.Errorf("all sessions %v, want %v", got, []string{child.ID, b.ID, a.ID})
	}
	if got := ids(must(c.ListSessions(ctx, client.ListSessionsOptions{Roots: true}))(t)); !slices.Equal(got, []string{b.ID, a.ID}) {
		t.Errorf("root sessions %v, want %v", got, []string{b.ID, a.ID})
	}
	if got := ids(must(c.ListSessions(ctx, client.ListSessionsOptions{Roots: true, Limit: 1}))(t)); !slices.Equal(got, []string{b.ID}) {
		t.Errorf("the newest root session %v, want %v", got, []string{b.ID})
	}
	if got := ids(must(c.ListSessions(ctx, client.ListSessionsOptions{Search: "ALPHA"}))(t)); !slices.Equal(got, []string{a.ID}) {
		t.Errorf("sessions matching ALPHA %v, want %v", got, []string{a.ID})
	}
	if got := ids(must(c.Children(ctx, a.ID))(t)); !slices.Equal(got, []string{child.ID}) {
		t.Errorf("children %v, want %v", got, []string{child.ID})
	}

	title := "  renamed  "
	r := must(c.UpdateSession(ctx, a.ID, client.UpdateSessionInput{Title: &title}))(t)
	if r.Title != "renamed" || must(c.GetSession(ctx, a.ID))(t).Title != "renamed" {
		t.Errorf("renamed title %q", r.Title)
	}
	empty := " "
	if _, err := c.UpdateSession(ctx, a.ID, client.UpdateSessionInput{Title: &empty}); err == nil {
		t.Error("an empty title was accepted")
	}

	f := must(c.ForkSession(ctx, a.ID, client.ForkSessionInput{}))(t)
	if f.ID == a.ID || !strings.HasPrefix(f.Title, "renamed") {
		t.Errorf("fork %+v", f)
	}

	if err := c.DeleteSession(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{a.ID, child.ID} {
		if _, err := c.GetSession(ctx, id); !errors.Is(err, client.ErrNotFound) {
			t.Errorf("session %s after deleting its root: error %v, want not found", id, err)
		}
	}
}

// missing: every call naming a record that does not exist says so with
// ErrNotFound.
func (s suite) missing(t *testing.T) {
	c, _ := s.start(t, "", "", nil)
	ctx := ctxFor(t)
	const ghost = "ses_ffffffffffffNoSuchSession00"
	_, err := c.GetSession(ctx, ghost)
	wantErr(t, "GetSession", err, client.ErrNotFound)
	wantErr(t, "DeleteSession", c.DeleteSession(ctx, ghost), client.ErrNotFound)
	_, err = c.Messages(ctx, ghost, client.MessagesOptions{})
	wantErr(t, "Messages", err, client.ErrNotFound)
	_, err = c.Prompt(ctx, ghost, client.PromptInput{Parts: []client.PartInput{client.TextInput("hi")}})
	wantErr(t, "Prompt", err, client.ErrNotFound)
	_, err = c.Children(ctx, ghost)
	wantErr(t, "Children", err, client.ErrNotFound)
	wantErr(t, "Abort", c.Abort(ctx, ghost), client.ErrNotFound)
	wantErr(t, "ReplyPermission", c.ReplyPermission(ctx, "per_none", client.PermissionReply{Reply: client.ReplyOnce}), client.ErrNotFound)
	wantErr(t, "ReplyQuestion", c.ReplyQuestion(ctx, "que_none", [][]string{{"x"}}), client.ErrNotFound)
	wantErr(t, "RejectQuestion", c.RejectQuestion(ctx, "que_none"), client.ErrNotFound)
	sess := must(c.CreateSession(ctx, client.CreateSessionInput{}))(t)
	_, err = c.Message(ctx, sess.ID, "msg_none")
	wantErr(t, "Message", err, client.ErrNotFound)
}

// messagesPage: Limit keeps the newest messages and Before those older
// than a message.
func (s suite) messagesPage(t *testing.T) {
	c, _ := s.start(t, "", "", nil)
	ctx := ctxFor(t)
	sess := must(c.CreateSession(ctx, client.CreateSessionInput{}))(t)
	var ids []string
	for _, text := range []string{"one", "two", "three", "four"} {
		// NoReply stores the message without asking the model.
		id := must(c.Prompt(ctx, sess.ID, client.PromptInput{NoReply: true, Parts: []client.PartInput{client.TextInput(text)}}))(t)
		ids = append(ids, id)
	}
	got := func(ms []client.Message) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.Parts[0].Text)
		}
		return out
	}
	all := must(c.Messages(ctx, sess.ID, client.MessagesOptions{}))(t)
	if g := got(all); !slices.Equal(g, []string{"one", "two", "three", "four"}) {
		t.Fatalf("messages %v", g)
	}
	if all[0].Info.ID != ids[0] || all[0].Info.Role != client.RoleUser || all[0].Info.Model == nil || all[0].Info.Model.ModelID != "model" {
		t.Errorf("first message info %+v", all[0].Info)
	}
	if g := got(must(c.Messages(ctx, sess.ID, client.MessagesOptions{Limit: 2}))(t)); !slices.Equal(g, []string{"three", "four"}) {
		t.Errorf("last two %v", g)
	}
	if g := got(must(c.Messages(ctx, sess.ID, client.MessagesOptions{Before: ids[2], Limit: 1}))(t)); !slices.Equal(g, []string{"two"}) {
		t.Errorf("one before the third %v", g)
	}
	m := must(c.Message(ctx, sess.ID, ids[1]))(t)
	if m.Info.ID != ids[1] || len(m.Parts) != 1 || m.Parts[0].Text != "two" || m.Parts[0].Type != client.PartText {
		t.Errorf("message two %+v", m)
	}
	other := must(c.CreateSession(ctx, client.CreateSessionInput{}))(t)
	_, err := c.Message(ctx, other.ID, ids[1])
	wantErr(t, "a message asked for under another session", err, client.ErrNotFound)
}

// revert runs a step that writes a file and one that changes it by shell,
// reverts to the first prompt (files restored, the revert recorded),
// unreverts (files back), refuses to overwrite a file the user changed,
// and makes the revert final on the next prompt (messages removed).
func (s suite) revert(t *testing.T) {
	script := "step\ncall call_w write {\"filePath\":\"notes.txt\",\"content\":\"agent wrote this\\n\"}\nfinish tool-calls\n" +
		"step\ncall call_b bash {\"command\":\"rm old.txt\"}\nfinish tool-calls\nstep\ntext Done.\nfinish stop\n" +
		"step\ntext Again.\nfinish stop\n"
	c, p := s.start(t, script, `"permission": {"bash": "allow", "edit": "allow"}`, map[string]string{"old.txt": "old\n"})
	ctx := ctxFor(t)
	sess := must(c.CreateSession(ctx, client.CreateSessionInput{}))(t)
	ev := must(c.Subscribe(ctx, client.EventFilter{}))(t)
	defer ev.Close()
	first := must(c.Prompt(ctx, sess.ID, client.PromptInput{Parts: []client.PartInput{client.TextInput("write notes")}}))(t)
	until(t, ev, idle(sess.ID))
	notes, old := filepath.Join(p.Dir, "notes.txt"), filepath.Join(p.Dir, "old.txt")
	exists := func(path string) bool { _, err := os.Stat(path); return err == nil }
	if !exists(notes) || exists(old) {
		t.Fatalf("after the steps: notes.txt exists %v, old.txt exists %v", exists(notes), exists(old))
	}
	msgs := must(c.Messages(ctx, sess.ID, client.MessagesOptions{}))(t)

	got := must(c.Revert(ctx, sess.ID, client.RevertInput{MessageID: first}))(t)
	if exists(notes) || !exists(old) {
		t.Errorf("after the revert: notes.txt exists %v, old.txt exists %v", exists(notes), exists(old))
	}
	if !strings.Contains(string(got.Revert), first) {
		t.Errorf("the session's revert %s does not name message %s", got.Revert, first)
	}
	must(c.Unrevert(ctx, sess.ID))(t)
	if b, err := os.ReadFile(notes); err != nil || string(b) != "agent wrote this\n" || exists(old) {
		t.Errorf("after the unrevert: notes.txt %q (%v), old.txt exists %v", b, err, exists(old))
	}
	if got := must(c.GetSession(ctx, sess.ID))(t); len(got.Revert) != 0 {
		t.Errorf("the session still records a revert: %s", got.Revert)
	}

	// A file the user changed since is not overwritten.
	if err := os.WriteFile(notes, []byte("the user's own text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Revert(ctx, sess.ID, client.RevertInput{MessageID: first}); err == nil || !strings.Contains(err.Error(), "notes.txt") {
		t.Errorf("revert over a user's change: %v, want an error naming notes.txt", err)
	}
	if b, _ := os.ReadFile(notes); string(b) != "the user's own text\n" {
		t.Errorf("notes.txt = %q: the user's change was overwritten", b)
	}
	must(c.Revert(ctx, sess.ID, client.RevertInput{MessageID: first, Force: true}))(t)
	if exists(notes) || !exists(old) {
		t.Errorf("after a forced revert: notes.txt exists %v, old.txt exists %v", exists(notes), exists(old))
	}
	if n := len(must(c.Messages(ctx, sess.ID, client.MessagesOptions{}))(t)); n != len(msgs) {
		t.Errorf("%d messages while reverted, want all %d kept until the next prompt", n, len(msgs))
	}
	must(c.Prompt(ctx, sess.ID, client.PromptInput{Parts: []client.PartInput{client.TextInput("start over")}}))(t)
	evs := until(t, ev, idle(sess.ID))
	removed := map[string]bool{}
	ended := ""
	for _, e := range evs {
		switch e := e.(type) {
		case client.MessageRemovedEvent:
			if e.SessionID == sess.ID {
				removed[e.MessageID] = true
			}
		case client.TurnEndedEvent:
			ended = e.Reason
		}
	}
	for _, m := range msgs {
		if !removed[m.Info.ID] {
			t.Errorf("no message.removed event for %s %s after the revert became final", m.Info.Role, m.Info.ID)
		}
	}
	if ended != client.TurnCompleted {
		t.Errorf("the turn ended with %q, want %q\n%s", ended, client.TurnCompleted, describe(evs))
	}
	after := must(c.Messages(ctx, sess.ID, client.MessagesOptions{}))(t)
	if len(after) != 2 || after[0].Info.ID == first {
		t.Errorf("after the next prompt: %d messages (first %s), want only the new prompt and its answer", len(after), after[0].Info.ID)
	}
	if got := must(c.GetSession(ctx, sess.ID))(t); len(got.Revert) != 0 {
		t.Errorf("the revert is still recorded after the next prompt: %s", got.Revert)
	}
}

// catalogs: the configured model is listed and is the default; agents and
// commands are listed.
func (s suite) catalogs(t *testing.T) {
	files := map[string]string{".opencode/command/greet.md": "---\ndescription: Greets someone\n---\nSay hello to $ARGUMENTS\n"}
	c, _ := s.start(t, "", "", files)
	ctx := ctxFor(t)
	cat := must(c.Models(ctx))(t)
	var found *client.Model
	for _, p := range cat.Providers {
		for i, m := range p.Models {
			if p.ID == "fake" && m.ID == "model" {
				found = &p.Models[i]
			}
		}
	}
	if found == nil {
		t.Fatalf("fake/model is not listed: %+v", cat.Providers)
	}
	if found.Name != "Fake" || found.Limit.Context != 100000 || found.ProviderID != "fake" {
		t.Errorf("fake/model %+v", *found)
	}
	if cat.Default == nil || cat.Default.String() != "fake/model" {
		t.Errorf("default %v, want fake/model", cat.Default)
	}
	agents := must(c.Agents(ctx))(t)
	var primary []string
	for _, a := range agents {
		if a.Primary() && !a.Hidden {
			primary = append(primary, a.Name)
		}
	}
	if !slices.Contains(primary, "build") || !slices.Contains(primary, "plan") {
		t.Errorf("primary agents %v, want build and plan among them", primary)
	}
	cmds := must(c.Commands(ctx))(t)
	i := slices.IndexFunc(cmds, func(c client.Command) bool { return c.Name == "greet" })
	if i < 0 {
		t.Fatalf("the project's command greet is not listed: %+v", cmds)
	}
	if g := cmds[i]; g.Description != "Greets someone" || !slices.Contains(g.Hints, "$ARGUMENTS") ||
		!strings.Contains(g.Template, "Say hello to $ARGUMENTS") || g.Source != "command" || !strings.HasSuffix(g.Origin, "greet.md") {
		t.Errorf("greet %+v", cmds[i])
	}
	var cfg struct {
		Model    string         `json:"model"`
		Provider map[string]any `json:"provider"`
	}
	if err := json.Unmarshal(must(c.Config(ctx))(t), &cfg); err != nil {
		t.Fatalf("config: %v", err)
	}
	if cfg.Model != "fake/model" || cfg.Provider["fake"] == nil {
		t.Errorf("config model %q, providers %v", cfg.Model, cfg.Provider)
	}
}
