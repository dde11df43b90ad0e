package store

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/codeloop/codeloop/internal/id"
)

// TestSessionRevision checks that every stored, updated and deleted message
// or part of a session counts one change, and that nothing else does.
func TestSessionRevision(t *testing.T) {
	ctx := context.Background()
	s := open(t, ":memory:")
	a := newSession(t, s, "")
	b := newSession(t, s, "")
	rev := func(want int64) {
		t.Helper()
		got, err := s.SessionRevision(ctx, a.ID)
		if err != nil || got != want {
			t.Fatalf("revision = %d, %v; want %d", got, err, want)
		}
	}
	rev(0)
	m := Message{ID: id.Ascending(id.Message), SessionID: a.ID, Data: json.RawMessage(`{"role":"user"}`)}
	steps := []struct {
		name string
		do   func() error
		want int64
	}{
		{"insert message", func() error { return s.PutMessage(ctx, m) }, 1},
		{"update message", func() error { return s.PutMessage(ctx, m) }, 2},
		{"insert part", func() error {
			return s.PutPart(ctx, Part{ID: "prt_1", MessageID: m.ID, SessionID: a.ID, Data: json.RawMessage(`{"type":"text"}`)})
		}, 3},
		{"update part", func() error {
			return s.PutPart(ctx, Part{ID: "prt_1", MessageID: m.ID, SessionID: a.ID, Data: json.RawMessage(`{"type":"text","text":"x"}`)})
		}, 4},
		{"save the session itself", func() error { return s.PutSession(ctx, a) }, 4},
		{"write another session", func() error {
			return s.PutMessage(ctx, Message{ID: id.Ascending(id.Message), SessionID: b.ID, Data: json.RawMessage(`{}`)})
		}, 4},
		{"delete part", func() error { return s.DeletePart(ctx, "prt_1") }, 5},
		{"delete message", func() error { return s.DeleteMessage(ctx, m.ID) }, 6},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		rev(st.want)
	}
	if _, err := s.SessionRevision(ctx, "ses_missing"); err == nil {
		t.Fatal("the revision of a missing session has no error")
	}
}

// TestHistoryQueries checks the indexed queries the session loop uses: the
// completed summaries, the unfinished answers and the suffix of a history.
func TestHistoryQueries(t *testing.T) {
	ctx := context.Background()
	s := open(t, ":memory:")
	ses := newSession(t, s, "")
	put := func(data string) string {
		t.Helper()
		m := Message{ID: id.Ascending(id.Message), SessionID: ses.ID, Data: json.RawMessage(data)}
		if err := s.PutMessage(ctx, m); err != nil {
			t.Fatal(err)
		}
		if err := s.PutPart(ctx, Part{ID: id.Ascending(id.Part), MessageID: m.ID, SessionID: ses.ID,
			Data: json.RawMessage(`{"type":"tool","tool":"read"}`)}); err != nil {
			t.Fatal(err)
		}
		return m.ID
	}
	u1 := put(`{"role":"user"}`)
	done := put(`{"role":"assistant","parentID":"` + u1 + `","summary":true,"finish":"stop","time":{"created":1,"completed":2}}`)
	put(`{"role":"assistant","parentID":"` + u1 + `","summary":true,"finish":"stop","error":{"name":"x"},"time":{"created":1}}`)
	open0 := put(`{"role":"assistant","parentID":"` + u1 + `","summary":true,"time":{"created":1}}`)
	open1 := put(`{"role":"assistant","parentID":"` + u1 + `","time":{"created":1}}`)
	u2 := put(`not json at all`)
	put(`{"role":"assistant","parentID":"` + u2 + `","finish":"stop","time":{"created":1,"completed":3}}`)

	sums, err := s.CompletedSummaries(ctx, ses.ID)
	if err != nil || len(sums) != 1 || sums[0] != (Summary{ID: done, ParentID: u1}) {
		t.Fatalf("CompletedSummaries = %+v, %v", sums, err)
	}
	open, err := s.UnfinishedAssistants(ctx, ses.ID)
	if err != nil || !slices.Equal(open, []string{open0, open1}) {
		t.Fatalf("UnfinishedAssistants = %v, %v; want [%s %s]", open, err, open0, open1)
	}
	if r, err := s.MessageRole(ctx, ses.ID, u1); r != "user" || err != nil {
		t.Fatalf("MessageRole = %q, %v", r, err)
	}
	msgs, err := s.ListMessagesFrom(ctx, ses.ID, u2)
	if err != nil || len(msgs) != 2 || msgs[0].ID != u2 {
		t.Fatalf("ListMessagesFrom = %d messages, %v", len(msgs), err)
	}
	parts, err := s.ListPartsFrom(ctx, ses.ID, u2)
	if err != nil || len(parts) != 2 || parts[0].MessageID != u2 {
		t.Fatalf("ListPartsFrom = %d parts, %v", len(parts), err)
	}
	all, err := s.ListPartsFrom(ctx, ses.ID, "")
	if err != nil || len(all) != 7 {
		t.Fatalf("ListPartsFrom all = %d parts, %v", len(all), err)
	}
	var tools int
	if err := s.DB().QueryRowContext(ctx, `SELECT count(*) FROM tool_use WHERE session_id = ?`, ses.ID).Scan(&tools); err != nil || tools != 7 {
		t.Fatalf("tool_use rows = %d, %v", tools, err)
	}
	if err := s.DeleteSession(ctx, ses.ID); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := s.DB().QueryRowContext(ctx, `SELECT (SELECT count(*) FROM message_meta) + (SELECT count(*) FROM tool_use)`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("rows left after deleting the session: %d, %v", left, err)
	}
}
