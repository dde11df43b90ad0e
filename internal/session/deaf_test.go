package session

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/fakellm"
	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/store"
	"github.com/codeloop/codeloop/internal/tool"
)

// deafTool ignores its cancellation, as a call stuck in a system call
// would; only the test releases it.
type deafTool struct {
	started, release chan struct{}
}

func (d *deafTool) ID() string              { return "deaf" }
func (d *deafTool) Description() string     { return "Never answers its cancellation." }
func (d *deafTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }

func (d *deafTool) Run(context.Context, *tool.Call) (*tool.Result, error) {
	close(d.started)
	<-d.release
	return &tool.Result{Title: "released", Output: "released"}, nil
}

// TestAbortWithDeafTool cancels a session whose tool ignores the
// cancellation: the loop must still end, recording the call as
// interrupted, and the engine must close, so that a signal is always
// answered.
func TestAbortWithDeafTool(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	deaf := &deafTool{started: make(chan struct{}), release: make(chan struct{})}
	defer close(deaf.release) // let the goroutine end before goleak looks
	step := append(fakellm.Call("c1", "deaf", `{}`), fakellm.Finish(llm.FinishToolCalls, llm.Usage{})...)
	main := fakellm.NewScripted("fake", step)
	sessions := NewSessions(st, bus.New(time.Second), "test")
	eng, err := New(Config{Sessions: sessions, Models: &testModels{main: main, small: fakellm.NewScripted("fake")},
		Agents: StaticAgents{BuildAgent()}, Tools: listTools{deaf}})
	if err != nil {
		t.Fatal(err)
	}
	sess, _ := sessions.Create(ctx, CreateInput{ProjectID: "p", Title: "Deaf"})
	if _, err := eng.Send(ctx, PromptInput{SessionID: sess.ID, Parts: []message.Part{TextPart("call it")}}); err != nil {
		t.Fatal(err)
	}
	<-deaf.started
	eng.Cancel(sess.ID)
	if _, err := eng.Wait(ctx, sess.ID); err != nil {
		t.Fatalf("Wait: %v", err)
	}
	msgs, _ := sessions.Messages(ctx, sess.ID)
	last := msgs[len(msgs)-1]
	tp, ok := last.Parts[len(last.Parts)-1].(*message.ToolPart)
	if !ok || tp.State.Status != message.ToolError || tp.State.Metadata["interrupted"] != true {
		t.Fatalf("the stuck call was not recorded as interrupted: %+v", last.Parts)
	}
	eng.Close() // returns although the tool still runs
}
