package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/id"
	"github.com/codeloop/codeloop/internal/store"
)

// benchStore opens a database file with one session and one message.
func benchStore(b *testing.B) (*store.Store, store.Message) {
	b.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	if err := s.PutProject(ctx, store.Project{ID: "p", Worktree: "/repo"}); err != nil {
		b.Fatal(err)
	}
	sess := store.Session{ID: id.Descending(id.Session), ProjectID: "p", Directory: "/repo", Data: json.RawMessage(`{}`)}
	if err := s.PutSession(ctx, sess); err != nil {
		b.Fatal(err)
	}
	m := store.Message{ID: id.Ascending(id.Message), SessionID: sess.ID, Data: json.RawMessage(`{"role":"assistant"}`)}
	if err := s.PutMessage(ctx, m); err != nil {
		b.Fatal(err)
	}
	return s, m
}

func partData(n int) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"type": "text", "text": strings.Repeat("x", n)})
	return b
}

// BenchmarkPutPart measures the write a streaming answer makes at each
// flush: one upsert of a growing text part, in its own transaction, on a
// WAL database file.
func BenchmarkPutPart(b *testing.B) {
	for _, size := range []int{200, 4000, 64000} {
		b.Run(fmt.Sprintf("%dB", size), func(b *testing.B) {
			s, m := benchStore(b)
			p := store.Part{ID: id.Ascending(id.Part), MessageID: m.ID, SessionID: m.SessionID, Data: partData(size)}
			ctx := context.Background()
			b.SetBytes(int64(len(p.Data)))
			for b.Loop() {
				if err := s.PutPart(ctx, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNewParts measures appending new parts (a tool call's part, a
// step's start and end), each in its own transaction.
func BenchmarkNewParts(b *testing.B) {
	s, m := benchStore(b)
	ctx := context.Background()
	data := partData(500)
	for b.Loop() {
		if err := s.PutPart(ctx, store.Part{ID: id.Ascending(id.Part), MessageID: m.ID, SessionID: m.SessionID, Data: data}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTxMessage measures storing a whole message with five parts in
// one transaction, as an import or a fork does.
func BenchmarkTxMessage(b *testing.B) {
	s, m := benchStore(b)
	ctx := context.Background()
	data := partData(500)
	for b.Loop() {
		msg := store.Message{ID: id.Ascending(id.Message), SessionID: m.SessionID, Data: m.Data}
		err := s.Tx(ctx, func(tx *store.Tx) error {
			if err := tx.PutMessage(ctx, msg); err != nil {
				return err
			}
			for range 5 {
				if err := tx.PutPart(ctx, store.Part{ID: id.Ascending(id.Part), MessageID: msg.ID, SessionID: msg.SessionID, Data: data}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkListParts measures reading every part of a 1,000-part session,
// as each step of the loop does.
func BenchmarkListParts(b *testing.B) {
	s, m := benchStore(b)
	ctx := context.Background()
	data := partData(500)
	for range 1000 {
		if err := s.PutPart(ctx, store.Part{ID: id.Ascending(id.Part), MessageID: m.ID, SessionID: m.SessionID, Data: data}); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		parts, err := s.ListParts(ctx, m.SessionID)
		if err != nil || len(parts) != 1000 {
			b.Fatalf("%d parts, %v", len(parts), err)
		}
	}
}
