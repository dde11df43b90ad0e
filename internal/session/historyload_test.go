package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/store"
)

// storedTurns makes a session on a database file holding n messages of
// one-turn exchanges (3n rows: see turns).
func storedTurns(t *testing.T, n int) (*Sessions, string) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "load.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s := NewSessions(st, nil, "test")
	sess, err := s.Create(ctx, CreateInput{ProjectID: "p", Title: "load"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Import(ctx, Export{Info: sess, Messages: turns(sess.ID, n)}, ImportOptions{ProjectID: "p", Replace: true}); err != nil {
		t.Fatal(err)
	}
	return s, sess.ID
}

// readAll runs readHistory over the whole session in a read transaction.
func readAll(ctx context.Context, s *Sessions, sessionID string, workers int) ([]message.Message, error) {
	stored, _, err := readAllSize(ctx, s, sessionID, workers)
	return stored, err
}

// readAllSize is readAll that also returns the size of the JSON read.
func readAllSize(ctx context.Context, s *Sessions, sessionID string, workers int) ([]message.Message, int, error) {
	var (
		stored []message.Message
		size   int
	)
	err := s.store.Read(context.Background(), func(tx *store.Tx) error {
		var err error
		stored, size, err = readHistory(ctx, tx, sessionID, "", workers)
		return err
	})
	return stored, size, err
}

// storedSize is the size of the stored JSON of the session's messages and
// parts.
func storedSize(t *testing.T, s *Sessions, sessionID string) int {
	t.Helper()
	msgs, err := s.store.ListMessages(context.Background(), sessionID)
	if err != nil {
		t.Fatal(err)
	}
	parts, err := s.store.ListParts(context.Background(), sessionID)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range msgs {
		n += len(m.Data)
	}
	for _, p := range parts {
		n += len(p.Data)
	}
	return n
}

// decoderGoroutines counts the goroutines decoding a history.
func decoderGoroutines() int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	return bytes.Count(buf, []byte("(*decoders).work"))
}

// TestReadHistory checks that a history decoded while it is read, inline
// or by several goroutines, is the history the store holds, fully decoded,
// and that no decoding goroutine outlives the read.
func TestReadHistory(t *testing.T) {
	// Not parallel: it counts the decoding goroutines of the whole
	// process, which parallel tests reading histories would add to.
	ctx := context.Background()
	for _, n := range []int{0, 10, 256, 601} {
		s, sid := storedTurns(t, n)
		want, err := s.MessagesFrom(ctx, sid, "")
		if err != nil {
			t.Fatal(err)
		}
		wantJSON, _ := json.Marshal(want)
		wantSize := storedSize(t, s, sid)
		for _, workers := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("%d messages, %d workers", n, workers), func(t *testing.T) {
				got, size, err := readAllSize(ctx, s, sid, workers)
				if err != nil {
					t.Fatal(err)
				}
				if size != wantSize {
					t.Errorf("the read reports %d bytes of JSON, the store holds %d", size, wantSize)
				}
				if g := decoderGoroutines(); g != 0 {
					t.Errorf("%d decoding goroutines are left", g)
				}
				for _, m := range got {
					for _, p := range m.Parts {
						if p == nil {
							t.Fatalf("message %s holds a part not decoded", m.Info.ID)
						}
					}
				}
				if gotJSON, _ := json.Marshal(got); !bytes.Equal(gotJSON, wantJSON) {
					t.Errorf("the history read differs from the stored one:\n got %.300s\nwant %.300s", gotJSON, wantJSON)
				}
			})
		}
	}
}

// TestReadHistoryDecodeError checks that a row that does not decode fails
// the read with an error naming it, wherever it falls: in a batch a
// goroutine decodes while the reader goes on (the last one, after which
// the reader itself has nothing left to decode, too), or in the rest the
// reader decodes itself.
func TestReadHistoryDecodeError(t *testing.T) {
	// Not parallel: it counts the decoding goroutines of the whole
	// process, which parallel tests reading histories would add to.
	ctx := context.Background()
	// 256 messages are 768 rows, three whole batches.
	const n = 256
	tests := []struct {
		name string
		msg  int  // the message whose row, or whose last part, is broken
		info bool // break the message's own row rather than its part
	}{
		{name: "first message", msg: 0, info: true},
		{name: "part in the first batch", msg: 1},
		{name: "last part of the last batch", msg: n - 1},
		{name: "message in the last batch", msg: n - 2, info: true},
	}
	for _, tt := range tests {
		for _, workers := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s, %d workers", tt.name, workers), func(t *testing.T) {
				s, sid := storedTurns(t, n)
				all, err := s.MessagesFrom(ctx, sid, "")
				if err != nil {
					t.Fatal(err)
				}
				m := all[tt.msg]
				var bad string
				if tt.info {
					bad = m.Info.ID
					err = s.store.PutMessage(ctx, store.Message{ID: bad, SessionID: sid, Data: json.RawMessage(`{"role":"robot"}`)})
				} else {
					p := m.Parts[len(m.Parts)-1]
					bad = p.Base().ID
					err = s.store.PutPart(ctx, store.Part{ID: bad, MessageID: m.Info.ID, SessionID: sid,
						Data: json.RawMessage(`{"type":"text","text":42}`)})
				}
				if err != nil {
					t.Fatal(err)
				}
				got, err := readAll(ctx, s, sid, workers)
				if err == nil || !strings.Contains(err.Error(), bad) {
					t.Fatalf("readHistory = %d messages, error %v; want an error naming %s", len(got), err, bad)
				}
				if g := decoderGoroutines(); g != 0 {
					t.Errorf("%d decoding goroutines are left", g)
				}
				if _, err := s.View(ctx, sid); err == nil || !strings.Contains(err.Error(), bad) {
					t.Fatalf("View: error %v, want one naming %s", err, bad)
				}
			})
		}
	}
}

// TestReadHistoryCancelled checks that a read whose context has ended
// stops with the context's error and leaves no goroutine behind, and that
// the kept history is read again by the next View.
func TestReadHistoryCancelled(t *testing.T) {
	// Not parallel: it counts the decoding goroutines of the whole
	// process, which parallel tests reading histories would add to.
	s, sid := storedTurns(t, 601)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := readAll(ctx, s, sid, 2); !errors.Is(err, context.Canceled) {
		t.Fatalf("readHistory: error %v, want context.Canceled", err)
	}
	if g := decoderGoroutines(); g != 0 {
		t.Errorf("%d decoding goroutines are left", g)
	}
	if _, err := s.View(ctx, sid); !errors.Is(err, context.Canceled) {
		t.Fatalf("View: error %v, want context.Canceled", err)
	}
	v, err := s.View(context.Background(), sid)
	if err != nil || len(v.Model) != 601 {
		t.Fatalf("View after the cancelled one = %d messages, %v; want 601", len(v.Model), err)
	}
}

// TestViewSharedUntilWrite checks that views taken with no write between
// them share their messages, and that a write gives the next view a copy
// of its own holding the write, leaving the earlier view as it was.
func TestViewSharedUntilWrite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, sid := storedTurns(t, 4)
	first, err := s.View(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	again, err := s.View(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Stored) != len(first.Stored) || &again.Stored[0] != &first.Stored[0] {
		t.Fatalf("a view with no write since the last one copied the messages")
	}
	if cap(first.Stored) != len(first.Stored) || cap(first.Model) != len(first.Model) {
		t.Errorf("a shared view has room to append into: cap %d/%d, len %d/%d",
			cap(first.Stored), cap(first.Model), len(first.Stored), len(first.Model))
	}
	last := first.Stored[len(first.Stored)-1].Info
	changed := last
	changed.Finish = "length"
	if err := s.PutMessage(ctx, changed); err != nil {
		t.Fatal(err)
	}
	after, err := s.View(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	if &after.Stored[0] == &first.Stored[0] {
		t.Fatalf("the view after a write shares the earlier view's messages")
	}
	if got := after.Stored[len(after.Stored)-1].Info.Finish; got != "length" {
		t.Errorf("finish after the write = %q, want length", got)
	}
	if got := first.Stored[len(first.Stored)-1].Info.Finish; got != last.Finish {
		t.Errorf("the earlier view changed: finish %q, want %q", got, last.Finish)
	}
}
