package session

import (
	"context"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/approval"
	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/fakellm"
	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/store"
	"github.com/codeloop/codeloop/internal/tool"
)

// TestTitleOnceWhileInFlight runs a second loop on a session (a manual
// compaction) while the first prompt's title is still being written: the
// title is asked for once, not once per loop.
func TestTitleOnceWhileInFlight(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b := bus.New(time.Second)
	main := fakellm.NewScripted("fake",
		append(fakellm.Text("t1", "It is small."), fakellm.Finish(llm.FinishStop, llm.Usage{Input: 10, Output: 3})...),
		append(fakellm.Text("t1", "SUMMARY: small."), fakellm.Finish(llm.FinishStop, llm.Usage{Input: 12, Output: 3})...),
	)
	small := fakellm.NewScripted("fake", append(fakellm.Step{{Type: fakellm.EventPause}},
		append(fakellm.Text("t1", "Project question"), fakellm.Finish(llm.FinishStop, llm.Usage{})...)...),
		append(fakellm.Text("t1", "A second title"), fakellm.Finish(llm.FinishStop, llm.Usage{})...))
	release := make(chan struct{})
	paused := make(chan struct{})
	small.OnPause = func(ctx context.Context, _ int) {
		close(paused)
		select {
		case <-release:
		case <-ctx.Done():
		}
	}
	sessions := NewSessions(st, b, "test")
	eng, err := New(Config{
		Sessions: sessions, Bus: b, Models: &testModels{main: main, small: small, limit: llm.Limit{Context: 100000, Output: 4000}},
		Agents:      StaticAgents{BuildAgent()},
		Tools:       registryTools{tool.NewRegistry(tool.Builtins(tool.Env{Ripgrep: "-"})...)},
		Permissions: approval.NewService(b, nil, approval.Options{NonInteractive: true}),
		Directory:   t.TempDir(), Worktree: t.TempDir(),
		FlushInterval: 5 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	sess, err := sessions.Create(ctx, CreateInput{ProjectID: "p", Directory: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	deadline, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := eng.Prompt(deadline, PromptInput{SessionID: sess.ID, Parts: []message.Part{TextPart("explain the project")}}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-paused:
	case <-deadline.Done():
		t.Fatal("no title request")
	}
	if err := eng.Compact(deadline, sess.ID); err != nil {
		t.Fatal(err)
	}
	close(release)
	eng.Close()
	if n := len(small.Requests()); n != 1 {
		t.Errorf("%d title requests, want 1", n)
	}
	got, err := sessions.Get(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != "Project question" {
		t.Errorf("title = %q, want the first request's", got.Title)
	}
}
