package session

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/fakellm"
	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/store"
)

// TestStalledStreamIsRetried has the model go silent in the middle of an
// answer: the stream is cut after the stall timeout and the request is
// retried, instead of the session waiting forever.
func TestStalledStreamIsRetried(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		timeout time.Duration
		wantErr bool
	}{
		{"cut and retried", 50 * time.Millisecond, false},
		{"negative disables the watchdog", -1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			st, err := store.Open(ctx, ":memory:")
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			b := bus.New(time.Second)
			main := fakellm.NewScripted("fake",
				append(fakellm.Text("t1", "Half an ans"), fakellm.Step{{Type: fakellm.EventHang}}...),
				append(fakellm.Text("t1", "The whole answer."), fakellm.Finish(llm.FinishStop, llm.Usage{Input: 10, Output: 3})...),
			)
			sessions := NewSessions(st, b, "test")
			eng, err := New(Config{
				Sessions: sessions, Bus: b, Models: &testModels{main: main, small: main, limit: llm.Limit{Context: 100000, Output: 4000}},
				Agents:       StaticAgents{BuildAgent()},
				StallTimeout: func(string) time.Duration { return tt.timeout },
				RetryBase:    time.Millisecond, FlushInterval: 5 * time.Millisecond,
				Directory: t.TempDir(), Worktree: t.TempDir(),
			})
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			sess, err := sessions.Create(ctx, CreateInput{ProjectID: "p", Directory: t.TempDir(), Title: "fixed"})
			if err != nil {
				t.Fatal(err)
			}
			// Without the watchdog nothing ends the stall but this deadline.
			deadline, cancel := context.WithTimeout(ctx, 3*time.Second)
			defer cancel()
			_, err = eng.Prompt(deadline, PromptInput{SessionID: sess.ID, Parts: []message.Part{TextPart("answer")}})
			if err == nil {
				_, err = eng.Wait(deadline, sess.ID)
			}
			if tt.wantErr {
				if deadline.Err() == nil {
					t.Fatalf("the loop ended (%v) although nothing cuts the stall", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			msgs, err := sessions.Messages(ctx, sess.ID)
			if err != nil {
				t.Fatal(err)
			}
			var text []string
			retried := false
			for _, m := range msgs {
				for _, p := range m.Parts {
					switch p := p.(type) {
					case *message.TextPart:
						text = append(text, p.Text)
					case *message.RetryPart:
						retried = strings.Contains(p.Error.Error(), "sent nothing")
					}
				}
			}
			if !retried {
				t.Errorf("no retry part names the stall; texts %q", text)
			}
			if got := strings.Join(text, "|"); !strings.Contains(got, "The whole answer.") {
				t.Errorf("texts %q lack the retried answer", got)
			}
		})
	}
}
