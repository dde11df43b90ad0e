package session

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/id"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/store"
)

func openSessions(t *testing.T) *Sessions {
	t.Helper()
	st, err := store.Open(context.Background(), ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return NewSessions(st, nil, "test")
}

// addTurn stores a user message and an assistant answer; it returns their
// ids.
func addTurn(t *testing.T, s *Sessions, sessionID, question, answer string) (string, string) {
	t.Helper()
	ctx := context.Background()
	u := message.Info{ID: id.Ascending(id.Message), SessionID: sessionID, Role: message.RoleUser, Agent: "build",
		Model: message.ModelRef{ProviderID: "p", ModelID: "m"}}
	a := message.Info{ID: id.Ascending(id.Message), SessionID: sessionID, Role: message.RoleAssistant, ParentID: u.ID,
		Agent: "build", Mode: "build", Finish: "stop"}
	for _, m := range []struct {
		info message.Info
		text string
	}{{u, question}, {a, answer}} {
		if err := s.PutMessage(ctx, m.info); err != nil {
			t.Fatal(err)
		}
		p := &message.TextPart{PartBase: message.PartBase{ID: id.Ascending(id.Part), SessionID: sessionID, MessageID: m.info.ID}, Text: m.text}
		if err := s.PutPart(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	return u.ID, a.ID
}

func TestForkCopiesMessagesBefore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openSessions(t)
	src, err := s.Create(ctx, CreateInput{ProjectID: "p", Directory: "/w", Title: "Work"})
	if err != nil {
		t.Fatal(err)
	}
	addTurn(t, s, src.ID, "q1", "a1")
	u2, _ := addTurn(t, s, src.ID, "q2", "a2")

	fork, err := s.Fork(ctx, src.ID, u2)
	if err != nil {
		t.Fatal(err)
	}
	if fork.ID == src.ID || fork.Title != "Work (fork #1)" || fork.ProjectID != "p" {
		t.Fatalf("fork info: %+v", fork)
	}
	msgs, err := s.Messages(ctx, fork.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 {
		t.Fatalf("fork has %d messages, want 2", len(msgs))
	}
	orig, _ := s.Messages(ctx, src.ID)
	if msgs[0].Info.ID == orig[0].Info.ID || msgs[1].Info.ParentID != msgs[0].Info.ID {
		t.Fatalf("ids not remapped: %+v", msgs)
	}
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.Base().SessionID != fork.ID || p.Base().MessageID != m.Info.ID {
				t.Errorf("part %s not moved into the fork", p.Base().ID)
			}
		}
	}
	if got := msgs[1].Parts[0].(*message.TextPart).Text; got != "a1" {
		t.Errorf("fork answer %q", got)
	}
	all, _ := s.Fork(ctx, src.ID, "")
	if m, _ := s.Messages(ctx, all.ID); len(m) != 4 {
		t.Errorf("a full fork has %d messages, want 4", len(m))
	}
}

func TestExportImportRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openSessions(t)
	src, _ := s.Create(ctx, CreateInput{ProjectID: "p", Directory: "/w"})
	addTurn(t, s, src.ID, "q", "a")
	if err := s.AddUsage(ctx, src.ID, 0.5, message.Tokens{Input: 10, Output: 2}); err != nil {
		t.Fatal(err)
	}
	exp, err := s.Export(ctx, src.ID)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(exp)
	if err != nil {
		t.Fatal(err)
	}

	other := openSessions(t)
	var back Export
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	info, err := other.Import(ctx, back, ImportOptions{ProjectID: "q"})
	if err != nil {
		t.Fatal(err)
	}
	if info.ID != src.ID || info.ProjectID != "q" || info.Cost != 0.5 || info.Tokens.Input != 10 {
		t.Fatalf("imported info %+v", info)
	}
	again, _ := other.Export(ctx, src.ID)
	again.Info.ProjectID = "p"
	data2, _ := json.Marshal(again)
	if string(data) != string(data2) {
		t.Errorf("export after import differs:\n%s\n%s", data, data2)
	}
	// Importing again with Replace replaces the session instead of adding
	// to it.
	if _, err := other.Import(ctx, back, ImportOptions{ProjectID: "q", Replace: true}); err != nil {
		t.Fatal(err)
	}
	if m, _ := other.Messages(ctx, src.ID); len(m) != 2 {
		t.Errorf("%d messages after a second import, want 2", len(m))
	}
}

// TestImportNeverDeletes imports an export whose session exists and has
// grown since: without Replace the stored session keeps every message,
// and the import becomes a new session with ids of its own.
func TestImportNeverDeletes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openSessions(t)
	src, err := s.Create(ctx, CreateInput{ProjectID: "p", Title: "Grown"})
	if err != nil {
		t.Fatal(err)
	}
	addExchange := func(text string) {
		u := message.Info{ID: id.Ascending(id.Message), SessionID: src.ID, Role: message.RoleUser, Time: message.Time{Created: 1}}
		a := message.Info{ID: id.Ascending(id.Message), SessionID: src.ID, Role: message.RoleAssistant, ParentID: u.ID, Time: message.Time{Created: 2}}
		for _, m := range []message.Info{u, a} {
			if err := s.PutMessage(ctx, m); err != nil {
				t.Fatal(err)
			}
			if err := s.PutPart(ctx, &message.TextPart{PartBase: message.PartBase{ID: id.Ascending(id.Part), SessionID: src.ID, MessageID: m.ID}, Text: text}); err != nil {
				t.Fatal(err)
			}
		}
	}
	addExchange("before the export")
	exp, err := s.Export(ctx, src.ID)
	if err != nil {
		t.Fatal(err)
	}
	addExchange("after the export")

	info, err := s.Import(ctx, exp, ImportOptions{ProjectID: "other"})
	if err != nil {
		t.Fatal(err)
	}
	if info.ID == src.ID {
		t.Fatal("the import reused the id of a stored session")
	}
	if kept, _ := s.Messages(ctx, src.ID); len(kept) != 4 {
		t.Errorf("the stored session has %d messages after the import, want its 4", len(kept))
	}
	if orig, _ := s.Get(ctx, src.ID); orig.ProjectID != "p" {
		t.Errorf("the stored session moved to project %q", orig.ProjectID)
	}
	imported, _ := s.Messages(ctx, info.ID)
	if len(imported) != 2 {
		t.Fatalf("%d messages imported, want 2", len(imported))
	}
	if imported[1].Info.ParentID != imported[0].Info.ID {
		t.Errorf("parent id %q not remapped to %q", imported[1].Info.ParentID, imported[0].Info.ID)
	}
	for _, m := range imported {
		if m.Info.ID == exp.Messages[0].Info.ID || m.Info.ID == exp.Messages[1].Info.ID {
			t.Errorf("message %s kept the id of a stored message", m.Info.ID)
		}
	}
}

func TestImportOpenCodeExport(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../message/testdata/opencode_export.json")
	if err != nil {
		t.Fatal(err)
	}
	var e Export
	if err := json.Unmarshal(data, &e); err != nil {
		t.Fatal(err)
	}
	s := openSessions(t)
	ctx := context.Background()
	info, err := s.Import(ctx, e, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := s.Messages(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != len(e.Messages) || info.Slug != "brave-otter" || info.Title != "Fix the greeting" {
		t.Fatalf("imported %d messages, info %+v", len(msgs), info)
	}
}

// TestDeleteRemovesChildren checks that deleting a session deletes its
// children, and that AfterDelete's function hears of each, once it is gone
// from the store.
func TestDeleteRemovesChildren(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openSessions(t)
	var deleted []string
	s.AfterDelete(func(id string) {
		if _, err := s.Get(ctx, id); !errors.Is(err, ErrNotFound) {
			t.Errorf("AfterDelete(%s) while the session is still stored: %v", id, err)
		}
		deleted = append(deleted, id)
	})
	root, _ := s.Create(ctx, CreateInput{ProjectID: "p"})
	child, _ := s.Create(ctx, CreateInput{ProjectID: "p", ParentID: root.ID})
	if !IsDefaultTitle(child.Title) || child.Title[:len(ChildTitlePrefix)] != ChildTitlePrefix {
		t.Errorf("child title %q", child.Title)
	}
	addTurn(t, s, child.ID, "q", "a")
	if err := s.Delete(ctx, root.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, child.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("child still there: %v", err)
	}
	if err := s.Delete(ctx, root.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("deleting twice: %v", err)
	}
	if want := []string{child.ID, root.ID}; !slices.Equal(deleted, want) {
		t.Errorf("AfterDelete heard of %v, want %v", deleted, want)
	}
}

// TestListByLastActivity checks that a session a message was sent to last
// comes first in the list (what --continue takes), not the one created
// last.
func TestListByLastActivity(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openSessions(t)
	tick := time.UnixMilli(1_700_000_000_000)
	s.now = func() time.Time { tick = tick.Add(time.Millisecond); return tick }
	a, err := s.Create(ctx, CreateInput{ProjectID: "p", Title: "a"})
	if err != nil {
		t.Fatal(err)
	}
	addTurn(t, s, a.ID, "work in a", "ok")
	b, err := s.Create(ctx, CreateInput{ProjectID: "p", Title: "b"})
	if err != nil {
		t.Fatal(err)
	}
	first := func() string {
		t.Helper()
		list, err := s.List(ctx, store.SessionFilter{ProjectID: "p", RootsOnly: true, Limit: 1})
		if err != nil || len(list) != 1 {
			t.Fatalf("List = %v, %v", list, err)
		}
		return list[0].Title
	}
	steps := []struct {
		to   string
		want string
	}{
		{"", "b"}, // just created
		{a.ID, "a"},
		{b.ID, "b"},
		{a.ID, "a"},
	}
	for i, st := range steps {
		if st.to != "" {
			addTurn(t, s, st.to, "more", "ok")
		}
		if got := first(); got != st.want {
			t.Errorf("step %d: the last used session is %q, want %q", i, got, st.want)
		}
	}
}
