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

// lookTool records the session's messages its call was given.
type lookTool struct{ seen []message.Message }

func (l *lookTool) ID() string              { return "look" }
func (l *lookTool) Description() string     { return "Looks at the conversation." }
func (l *lookTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }

func (l *lookTool) Run(_ context.Context, call *tool.Call) (*tool.Result, error) {
	if call.Messages != nil {
		l.seen = call.Messages()
	}
	return &tool.Result{Title: "looked", Output: "ok"}, nil
}

// TestToolSeesMessages checks that a tool's call carries the session's
// messages, as the seeds' tool context does.
func TestToolSeesMessages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	look := &lookTool{}
	main := fakellm.NewScripted("fake",
		append(fakellm.Call("c1", "look", `{}`), fakellm.Finish(llm.FinishToolCalls, llm.Usage{})...),
		append(fakellm.Text("t", "Seen."), fakellm.Finish(llm.FinishStop, llm.Usage{})...))
	sessions := NewSessions(st, bus.New(time.Second), "test")
	eng, err := New(Config{Sessions: sessions, Models: &testModels{main: main, small: fakellm.NewScripted("fake")},
		Agents: StaticAgents{BuildAgent()}, Tools: listTools{look}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	sess, _ := sessions.Create(ctx, CreateInput{ProjectID: "p", Title: "Look"})
	if _, err := eng.Prompt(ctx, PromptInput{SessionID: sess.ID, Parts: []message.Part{TextPart("what did I say?")}}); err != nil {
		t.Fatal(err)
	}
	if len(look.seen) == 0 {
		t.Fatal("the tool's call carried no messages")
	}
	first := look.seen[0]
	if txt, ok := first.Parts[0].(*message.TextPart); first.Info.Role != message.RoleUser || !ok || txt.Text != "what did I say?" {
		t.Fatalf("first message %+v %+v", first.Info, first.Parts)
	}
}
