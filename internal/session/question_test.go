package session

import (
	"context"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/approval"
	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/fakellm"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/store"
	"github.com/codeloop/codeloop/internal/tool"
)

// TestDismissedQuestionEndsTurn has the model ask a question the user
// dismisses: the turn ends there, as after a rejected permission, and the
// model is not asked again.
func TestDismissedQuestionEndsTurn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b := bus.New(time.Second)
	questions := tool.NewQuestions(b)
	asked := b.Subscribe(bus.Filter{Types: []string{bus.QuestionAsked}}, 4)
	defer asked.Close()
	main := fakellm.NewScripted("fake",
		callStep("question", `{"questions":[{"question":"Which one?","header":"Pick","options":[{"label":"A","description":"a"},{"label":"B","description":"b"}]}]}`),
		textStep("asking again would be wrong"),
	)
	sessions := NewSessions(st, b, "test")
	work := t.TempDir()
	eng, err := New(Config{
		Sessions: sessions, Bus: b, Models: &testModels{main: main, small: fakellm.NewScripted("fake")},
		Agents: StaticAgents{BuildAgent()}, Tools: registryTools{tool.NewRegistry(tool.Builtins(tool.Env{Ripgrep: "-", Questions: questions})...)},
		Permissions: approval.NewService(b, nil, approval.Options{AutoApprove: true}),
		Directory:   work, Worktree: work, FlushInterval: time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	sess, err := sessions.Create(ctx, CreateInput{ProjectID: "p", Directory: work, Title: "question"})
	if err != nil {
		t.Fatal(err)
	}
	dismissed := make(chan error, 1)
	go func() {
		e, ok := <-asked.C
		if !ok {
			dismissed <- nil
			return
		}
		dismissed <- questions.Reject(ctx, e.Properties.(tool.QuestionRequest).ID)
	}()
	last, err := eng.Prompt(ctx, PromptInput{SessionID: sess.ID, Parts: []message.Part{TextPart("choose")}})
	if err != nil {
		t.Fatal(err)
	}
	if err := <-dismissed; err != nil {
		t.Fatalf("dismissing the question: %v", err)
	}
	if n := len(main.Requests()); n != 1 {
		t.Errorf("the model was asked %d times, want 1: a dismissed question must end the turn", n)
	}
	var call *message.ToolPart
	for _, p := range last.Parts {
		if tp, ok := p.(*message.ToolPart); ok {
			call = tp
		}
	}
	if call == nil || call.Tool != "question" || call.State.Status != message.ToolError {
		t.Fatalf("the last answer's parts %v hold no failed question call", last.Parts)
	}
}
