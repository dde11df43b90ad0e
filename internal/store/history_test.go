package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
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

// TestEachFrom checks the streaming reads of a history: the rows of one
// session from an id on, in order, each with its own data; an error from
// the callback, and the end of the context, stop the reading. The reads of
// the data alone are checked the same way, naming each row by its place
// (MessageIDAt, PartIDAt).
func TestEachFrom(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "each.db"))
	ses, other := newSession(t, s, ""), newSession(t, s, "")
	var msgIDs, partIDs []string
	for i := range 3 {
		for _, sid := range []string{ses.ID, other.ID} {
			m := Message{ID: id.Ascending(id.Message), SessionID: sid, Data: json.RawMessage(fmt.Sprintf(`{"role":"user","n":%d}`, i))}
			if err := s.PutMessage(ctx, m); err != nil {
				t.Fatal(err)
			}
			for j := range 2 {
				p := Part{ID: id.Ascending(id.Part), MessageID: m.ID, SessionID: sid, Data: json.RawMessage(fmt.Sprintf(`{"type":"text","text":"%d.%d"}`, i, j))}
				if err := s.PutPart(ctx, p); err != nil {
					t.Fatal(err)
				}
				if sid == ses.ID {
					partIDs = append(partIDs, p.ID)
				}
			}
			if sid == ses.ID {
				msgIDs = append(msgIDs, m.ID)
			}
		}
	}
	stop := errors.New("stop")
	tests := []struct {
		name      string
		from      string
		stopAfter int  // rows after which the callback fails; 0 for never
		cancel    bool // end the context instead of failing
		wantMsgs  []string
		wantParts []string
		wantErr   error
	}{
		{name: "whole history", wantMsgs: msgIDs, wantParts: partIDs},
		{name: "from the second message", from: msgIDs[1], wantMsgs: msgIDs[1:], wantParts: partIDs[2:]},
		{name: "from after the end", from: msgIDs[2] + "z"},
		{name: "the callback fails", stopAfter: 1, wantMsgs: msgIDs[:1], wantParts: partIDs[:1], wantErr: stop},
		{name: "the context ends", stopAfter: 1, cancel: true, wantMsgs: msgIDs[:1], wantParts: partIDs[:1], wantErr: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.Read(ctx, func(tx *Tx) error {
				for _, each := range []string{"messages", "parts", "message data", "part data"} {
					cctx, cancel := context.WithCancel(ctx)
					defer cancel()
					var ids []string
					var data []json.RawMessage
					row := func(id, sid string, d json.RawMessage) error {
						if sid != ses.ID {
							t.Errorf("%s: a row of session %s", each, sid)
						}
						ids, data = append(ids, id), append(data, d)
						if len(ids) == tt.stopAfter {
							if tt.cancel {
								cancel()
								return nil
							}
							return stop
						}
						return nil
					}
					at := func(idAt func(context.Context, string, string, int) (string, error)) func(json.RawMessage) error {
						return func(d json.RawMessage) error {
							id, err := idAt(ctx, ses.ID, tt.from, len(ids))
							if err != nil {
								return err
							}
							return row(id, ses.ID, d)
						}
					}
					var err error
					want, idAt := tt.wantMsgs, tx.MessageIDAt
					switch each {
					case "messages":
						err = tx.EachMessageFrom(cctx, ses.ID, tt.from, func(m Message) error { return row(m.ID, m.SessionID, m.Data) })
					case "parts":
						want, idAt = tt.wantParts, tx.PartIDAt
						err = tx.EachPartFrom(cctx, ses.ID, tt.from, func(p Part) error { return row(p.ID, p.SessionID, p.Data) })
					case "message data":
						err = tx.EachMessageDataFrom(cctx, ses.ID, tt.from, at(tx.MessageIDAt))
					case "part data":
						want, idAt = tt.wantParts, tx.PartIDAt
						err = tx.EachPartDataFrom(cctx, ses.ID, tt.from, at(tx.PartIDAt))
					}
					if tt.wantErr == nil {
						// Past the last row there is no id.
						if id, err := idAt(ctx, ses.ID, tt.from, len(want)); id != "" || err != nil {
							t.Errorf("%s: the id after the last row is %q, %v; want none", each, id, err)
						}
					}
					switch {
					case tt.wantErr == stop && err != stop:
						t.Errorf("%s: error %v, want the callback's own", each, err)
					case !errors.Is(err, tt.wantErr):
						t.Errorf("%s: error %v, want %v", each, err, tt.wantErr)
					}
					if !slices.Equal(ids, want) {
						t.Errorf("%s: read %v, want %v", each, ids, want)
					}
					// Each row keeps its own data after the rows that follow it.
					for i, d := range data {
						var v struct {
							Role string
							Text string
						}
						if err := json.Unmarshal(d, &v); err != nil || (v.Role == "" && v.Text == "") {
							t.Errorf("%s: row %d data %q: %v", each, i, d, err)
						}
						if i > 0 && string(d) == string(data[i-1]) {
							t.Errorf("%s: rows %d and %d share their data %q", each, i-1, i, d)
						}
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
