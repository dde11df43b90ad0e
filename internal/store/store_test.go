package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/codeloop/codeloop/internal/id"
)

func open(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func newSession(t *testing.T, s *Store, parent string) Session {
	t.Helper()
	ses := Session{ID: id.Descending(id.Session), ProjectID: "prj", ParentID: parent, Directory: "/w", Title: "t",
		TimeCreated: 1, TimeUpdated: 1, Data: json.RawMessage(`{"title":"t"}`)}
	if err := s.PutSession(context.Background(), ses); err != nil {
		t.Fatal(err)
	}
	return ses
}

func TestSessions(t *testing.T) {
	ctx := context.Background()
	for _, path := range []string{":memory:", filepath.Join(t.TempDir(), "db", "codeloop.db")} {
		t.Run(path, func(t *testing.T) {
			s := open(t, path)
			a := newSession(t, s, "")
			b := newSession(t, s, "")
			c := newSession(t, s, b.ID)

			got, err := s.GetSession(ctx, a.ID)
			if err != nil || got.Title != "t" || string(got.Data) != `{"title":"t"}` {
				t.Fatalf("GetSession = %+v, %v", got, err)
			}
			a.Title, a.Data = "renamed", json.RawMessage(`{"title":"renamed"}`)
			if err := s.PutSession(ctx, a); err != nil {
				t.Fatal(err)
			}
			if got, _ := s.GetSession(ctx, a.ID); got.Title != "renamed" {
				t.Fatalf("title after update = %q", got.Title)
			}

			tests := []struct {
				name   string
				filter SessionFilter
				want   []string
			}{
				{"all newest first", SessionFilter{}, []string{c.ID, b.ID, a.ID}},
				{"roots", SessionFilter{RootsOnly: true}, []string{b.ID, a.ID}},
				{"children", SessionFilter{ParentID: b.ID}, []string{c.ID}},
				{"limit", SessionFilter{Limit: 1}, []string{c.ID}},
				{"other project", SessionFilter{ProjectID: "nope"}, nil},
			}
			for _, tt := range tests {
				list, err := s.ListSessions(ctx, tt.filter)
				if err != nil {
					t.Fatal(err)
				}
				var ids []string
				for _, x := range list {
					ids = append(ids, x.ID)
				}
				if fmt.Sprint(ids) != fmt.Sprint(tt.want) {
					t.Errorf("%s: got %v, want %v", tt.name, ids, tt.want)
				}
			}

			if _, err := s.GetSession(ctx, "ses_missing"); !errors.Is(err, ErrNotFound) {
				t.Fatalf("GetSession(missing) error = %v, want ErrNotFound", err)
			}
			if err := s.DeleteSession(ctx, "ses_missing"); !errors.Is(err, ErrNotFound) {
				t.Fatalf("DeleteSession(missing) error = %v, want ErrNotFound", err)
			}
		})
	}
}

// TestSessionsByActivity checks that sessions are listed by the time they
// were last updated, newest first, then by id (newest first), whatever
// the order they were created in.
func TestSessionsByActivity(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "codeloop.db"))
	a := newSession(t, s, "")
	b := newSession(t, s, "")
	c := newSession(t, s, "")
	child := newSession(t, s, a.ID)
	touch := func(ses Session, at int64) {
		ses.TimeUpdated = at
		if err := s.PutSession(ctx, ses); err != nil {
			t.Fatal(err)
		}
	}
	touch(a, 30) // worked in a last
	touch(b, 20)
	touch(child, 40)
	// c was not touched: updated at 1, like nothing else.
	tests := []struct {
		name   string
		filter SessionFilter
		want   []string
	}{
		{"roots", SessionFilter{ProjectID: "prj", RootsOnly: true}, []string{a.ID, b.ID, c.ID}},
		{"last used root", SessionFilter{ProjectID: "prj", RootsOnly: true, Limit: 1}, []string{a.ID}},
		{"all", SessionFilter{}, []string{child.ID, a.ID, b.ID, c.ID}},
	}
	for _, tt := range tests {
		list, err := s.ListSessions(ctx, tt.filter)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, x := range list {
			ids = append(ids, x.ID)
		}
		if fmt.Sprint(ids) != fmt.Sprint(tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, ids, tt.want)
		}
	}
	// Same time: the newer session (the smaller descending id) first.
	touch(b, 30)
	list, err := s.ListSessions(ctx, SessionFilter{RootsOnly: true, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != b.ID || list[1].ID != a.ID {
		t.Errorf("a tie: got %v, want b then a", list)
	}
	var plan string
	row := s.DB().QueryRowContext(ctx, `EXPLAIN QUERY PLAN SELECT id FROM session
		WHERE project_id = 'prj' AND parent_id = '' ORDER BY time_updated DESC, id LIMIT 1`)
	var id1, id2, id3 int
	if err := row.Scan(&id1, &id2, &id3, &plan); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan, "session_activity") {
		t.Errorf("the last used session is not found through the index: %s", plan)
	}
}

func TestMessagesAndParts(t *testing.T) {
	ctx := context.Background()
	s := open(t, ":memory:")
	ses := newSession(t, s, "")
	var msgIDs, partIDs []string
	for i := range 3 {
		m := Message{ID: id.Ascending(id.Message), SessionID: ses.ID, Data: json.RawMessage(fmt.Sprintf(`{"n":%d}`, i))}
		if err := s.PutMessage(ctx, m); err != nil {
			t.Fatal(err)
		}
		msgIDs = append(msgIDs, m.ID)
		for j := range 2 {
			p := Part{ID: id.Ascending(id.Part), MessageID: m.ID, SessionID: ses.ID, Data: json.RawMessage(fmt.Sprintf(`{"n":%d}`, j))}
			if err := s.PutPart(ctx, p); err != nil {
				t.Fatal(err)
			}
			partIDs = append(partIDs, p.ID)
		}
	}
	// Update one part in place.
	if err := s.PutPart(ctx, Part{ID: partIDs[0], MessageID: msgIDs[0], SessionID: ses.ID, Data: json.RawMessage(`{"n":"x"}`)}); err != nil {
		t.Fatal(err)
	}
	msgs, err := s.ListMessages(ctx, ses.ID)
	if err != nil || len(msgs) != 3 {
		t.Fatalf("ListMessages = %d, %v", len(msgs), err)
	}
	for i, m := range msgs {
		if m.ID != msgIDs[i] {
			t.Fatalf("message %d = %s, want %s", i, m.ID, msgIDs[i])
		}
	}
	parts, err := s.ListParts(ctx, ses.ID)
	if err != nil || len(parts) != 6 {
		t.Fatalf("ListParts = %d, %v", len(parts), err)
	}
	for i, p := range parts {
		if p.ID != partIDs[i] {
			t.Fatalf("part %d = %s, want %s", i, p.ID, partIDs[i])
		}
	}
	if string(parts[0].Data) != `{"n":"x"}` {
		t.Fatalf("updated part data = %s", parts[0].Data)
	}
	mp, _ := s.ListMessageParts(ctx, msgIDs[1])
	if len(mp) != 2 || mp[0].ID != partIDs[2] {
		t.Fatalf("ListMessageParts = %+v", mp)
	}
	if err := s.DeleteMessage(ctx, msgIDs[0]); err != nil {
		t.Fatal(err)
	}
	if parts, _ := s.ListParts(ctx, ses.ID); len(parts) != 4 {
		t.Fatalf("parts after deleting a message = %d, want 4", len(parts))
	}
	if err := s.SetTodos(ctx, ses.ID, []Todo{{ID: "1", Content: "a", Status: "pending", Priority: "high"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteSession(ctx, ses.ID); err != nil {
		t.Fatal(err)
	}
	if msgs, _ := s.ListMessages(ctx, ses.ID); len(msgs) != 0 {
		t.Fatalf("messages after deleting the session = %d", len(msgs))
	}
	if todos, _ := s.ListTodos(ctx, ses.ID); len(todos) != 0 {
		t.Fatalf("todos after deleting the session = %d", len(todos))
	}
}

func TestPartRequiresMessage(t *testing.T) {
	s := open(t, ":memory:")
	ses := newSession(t, s, "")
	err := s.PutPart(context.Background(), Part{ID: "prt_x", MessageID: "msg_missing", SessionID: ses.ID})
	if err == nil {
		t.Fatal("PutPart with a missing message succeeded; foreign keys are off")
	}
}

func TestTxRollsBack(t *testing.T) {
	ctx := context.Background()
	s := open(t, ":memory:")
	ses := newSession(t, s, "")
	boom := errors.New("boom")
	err := s.Tx(ctx, func(tx *Tx) error {
		if err := tx.PutMessage(ctx, Message{ID: "msg_a", SessionID: ses.ID}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Tx error = %v", err)
	}
	if _, err := s.GetMessage(ctx, "msg_a"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("message survived a rolled-back transaction: %v", err)
	}
}

func TestTodosAndApprovals(t *testing.T) {
	ctx := context.Background()
	s := open(t, ":memory:")
	ses := newSession(t, s, "")
	want := []Todo{{ID: "1", Content: "a", Status: "pending", Priority: "high"}, {ID: "2", Content: "b", Status: "completed", Priority: "low"}}
	if err := s.SetTodos(ctx, ses.ID, want); err != nil {
		t.Fatal(err)
	}
	if err := s.SetTodos(ctx, ses.ID, want[1:]); err != nil {
		t.Fatal(err)
	}
	got, err := s.ListTodos(ctx, ses.ID)
	if err != nil || fmt.Sprint(got) != fmt.Sprint(want[1:]) {
		t.Fatalf("ListTodos = %v, %v", got, err)
	}

	add := func(scope, scopeID, pattern string) {
		if err := s.AddApproval(ctx, Approval{ID: id.Ascending(id.Permission), Scope: scope, ScopeID: scopeID, Permission: "bash", Pattern: pattern}); err != nil {
			t.Fatal(err)
		}
	}
	add("session", ses.ID, "git status *")
	add("session", ses.ID, "git status *") // duplicate kept once
	add("project", "prj", "npm test *")
	add("global", "", "ls *")
	if err := s.AddApproval(ctx, Approval{ID: "per_bad", Scope: "bogus", Permission: "x", Pattern: "y"}); err == nil {
		t.Fatal("an approval with an unknown scope was accepted")
	}
	all, _ := s.ListApprovals(ctx, "", "")
	if len(all) != 3 {
		t.Fatalf("ListApprovals(all) = %d, want 3", len(all))
	}
	proj, _ := s.ListApprovals(ctx, "project", "prj")
	if len(proj) != 1 || proj[0].Pattern != "npm test *" {
		t.Fatalf("ListApprovals(project) = %+v", proj)
	}
	n, err := s.DeleteApprovals(ctx, "session", "")
	if err != nil || n != 1 {
		t.Fatalf("DeleteApprovals(session) = %d, %v", n, err)
	}
}

func TestFutureSchemaRefused(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "codeloop.db")
	s := open(t, path)
	if _, err := s.db.ExecContext(ctx, `INSERT INTO schema_version (version, applied) VALUES (999, 0)`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err := Open(ctx, path)
	var fe *FutureSchemaError
	ms, _ := migrations()
	if !errors.As(err, &fe) || fe.Have != 999 || fe.Known != len(ms) {
		t.Fatalf("Open(future) error = %v, want a FutureSchemaError for version 999", err)
	}
	if !strings.Contains(err.Error(), "upgrade codeloop") {
		t.Fatalf("error %q does not say what to do", err)
	}
	// The refused database was not altered.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var rows int
	if err := db.QueryRow(`SELECT COUNT(*) FROM schema_version`).Scan(&rows); err != nil || rows != len(ms)+1 {
		t.Fatalf("schema_version rows = %d, %v; want %d", rows, err, len(ms)+1)
	}
}

// TestTwoProcesses has a second process write into the same database while
// this one writes too: neither may fail, nothing may be lost.
func TestTwoProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a second process")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "codeloop.db")
	s := open(t, path)
	ses := newSession(t, s, "")
	const n = 300

	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWriter$")
	cmd.Env = append(os.Environ(), "STORE_HELPER_DB="+path, "STORE_HELPER_SESSION="+ses.ID, "STORE_HELPER_N="+strconv.Itoa(n))
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var writeErr error
	for i := range n {
		err := s.Tx(ctx, func(tx *Tx) error {
			m := Message{ID: id.Ascending(id.Message), SessionID: ses.ID, Data: json.RawMessage(`{"from":"parent"}`)}
			if err := tx.PutMessage(ctx, m); err != nil {
				return err
			}
			return tx.PutPart(ctx, Part{ID: id.Ascending(id.Part), MessageID: m.ID, SessionID: ses.ID, Data: json.RawMessage(strconv.Itoa(i))})
		})
		if err != nil {
			writeErr = err
			break
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("second process failed: %v\n%s", err, out.String())
	}
	if writeErr != nil {
		t.Fatalf("first process failed: %v", writeErr)
	}
	msgs, err := s.ListMessages(ctx, ses.ID)
	if err != nil {
		t.Fatal(err)
	}
	parts, _ := s.ListParts(ctx, ses.ID)
	if len(msgs) != 2*n || len(parts) != 2*n {
		t.Fatalf("got %d messages and %d parts, want %d of each", len(msgs), len(parts), 2*n)
	}
}

func TestHelperWriter(t *testing.T) {
	path := os.Getenv("STORE_HELPER_DB")
	if path == "" {
		t.Skip("helper process for TestTwoProcesses")
	}
	ctx := context.Background()
	n, _ := strconv.Atoi(os.Getenv("STORE_HELPER_N"))
	sessionID := os.Getenv("STORE_HELPER_SESSION")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range n {
		m := Message{ID: id.Ascending(id.Message), SessionID: sessionID, Data: json.RawMessage(`{"from":"child"}`)}
		if err := s.PutMessage(ctx, m); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		if err := s.PutPart(ctx, Part{ID: id.Ascending(id.Part), MessageID: m.ID, SessionID: sessionID, Data: json.RawMessage(`1`)}); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
}

type syncBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	return len(p), nil
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
