package session

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/id"
	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/store"
)

// BenchmarkViewCold reads a session of n messages without a compaction
// from a database file into a new Sessions, as a process resuming it does
// before its first request: the store read and the decoding of every
// message and part. The messages are shaped like those of a real one-turn
// exchange (a user's text; an assistant's step start, text and step
// finish).
//
//	go test ./internal/session -run '^$' -bench ViewCold
func BenchmarkViewCold(b *testing.B) {
	for _, n := range []int{1000, 5000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			ctx := context.Background()
			st, err := store.Open(ctx, filepath.Join(b.TempDir(), "cold.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			sessions := NewSessions(st, bus.New(time.Second), "bench")
			sess, err := sessions.Create(ctx, CreateInput{ProjectID: "p", Title: "cold"})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := sessions.Import(ctx, Export{Info: sess, Messages: turns(sess.ID, n)},
				ImportOptions{ProjectID: "p", Replace: true}); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				v, err := NewSessions(st, bus.New(time.Second), "bench").View(ctx, sess.ID)
				if err != nil {
					b.Fatal(err)
				}
				if len(v.Model) != n {
					b.Fatalf("the view holds %d messages, want %d", len(v.Model), n)
				}
			}
		})
	}
}

// turns is n messages of one-turn exchanges as a real session stores them:
// a user's text, and an assistant's step start, text and step finish.
func turns(sessionID string, n int) []message.Message {
	msgs := make([]message.Message, 0, n)
	now := time.Now().Add(-time.Hour).UnixMilli()
	var userID string
	base := func(msgID string) message.PartBase {
		return message.PartBase{ID: id.Ascending(id.Part), SessionID: sessionID, MessageID: msgID}
	}
	for i := range n {
		info := message.Info{ID: id.Ascending(id.Message), SessionID: sessionID, Time: message.Time{Created: now}, Agent: "build"}
		var parts []message.Part
		if i%2 == 0 {
			info.Role = message.RoleUser
			info.Model = message.ModelRef{ProviderID: "fake", ModelID: "model"}
			userID = info.ID
			parts = append(parts, &message.TextPart{PartBase: base(info.ID),
				Text: fmt.Sprintf("Question %d: please look at the code again and tell me what the function on line %d does, and whether it needs a test.", i/2, i)})
		} else {
			info.Role = message.RoleAssistant
			info.ParentID = userID
			info.ProviderID, info.ModelID, info.Mode = "fake", "model", "build"
			info.Path = message.Path{Cwd: "/home/user/src/project", Root: "/home/user/src/project"}
			info.Tokens = message.Tokens{Total: 105, Input: 100, Output: 5}
			info.Finish = string(llm.FinishStop)
			info.Time.Completed = now
			tokens := info.Tokens
			parts = append(parts,
				&message.StepStartPart{PartBase: base(info.ID), Snapshot: "snp_688479fd65c1Fa751HQneH3Iue"},
				&message.TextPart{PartBase: base(info.ID), Time: &message.PartTime{Start: now, End: now},
					Text: fmt.Sprintf("Answer %d: the function on line %d parses its input, returns an error for empty text, and is already covered by the table test in parse_test.go.", i/2, i)},
				&message.StepFinishPart{PartBase: base(info.ID), Reason: "stop", Snapshot: "snp_688479fd65c1Fa751HQneH3Iue", Tokens: tokens})
		}
		msgs = append(msgs, message.Message{Info: info, Parts: parts})
	}
	return msgs
}
