package tool

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/store"
)

func TestTodoWrite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.PutSession(ctx, store.Session{ID: "ses_test", ProjectID: "prj", Directory: "/w", Title: "t",
		TimeCreated: 1, TimeUpdated: 1, Data: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	env := testEnv(t)
	env.Todos = st
	sub := env.Bus.Subscribe(bus.Filter{Types: []string{bus.TodoUpdated}}, 4)
	defer sub.Close()
	todos := []map[string]any{
		{"content": "Write the parser", "status": "completed", "priority": "high"},
		{"content": "Test it", "status": "in_progress", "priority": "high"},
		{"content": "Document it", "status": "pending", "priority": "low"},
	}
	res, err := run(t, env, "todowrite", t.TempDir(), map[string]any{"todos": todos})
	if err != nil {
		t.Fatal(err)
	}
	if res.Title != "2 todos" || !strings.Contains(res.Output, `"content": "Test it"`) {
		t.Errorf("result %q / %q", res.Title, res.Output)
	}
	stored, err := st.ListTodos(ctx, "ses_test")
	if err != nil {
		t.Fatal(err)
	}
	want := []store.Todo{{ID: "1", Content: "Write the parser", Status: "completed", Priority: "high"},
		{ID: "2", Content: "Test it", Status: "in_progress", Priority: "high"}, {ID: "3", Content: "Document it", Status: "pending", Priority: "low"}}
	if !slices.Equal(stored, want) {
		t.Errorf("stored %+v", stored)
	}
	select {
	case e := <-sub.C:
		if u, ok := e.Properties.(TodoUpdated); !ok || e.SessionID != "ses_test" || !slices.Equal(u.Todos, want) {
			t.Errorf("event %+v", e)
		}
	default:
		t.Error("no todo.updated event")
	}
	// A status outside the enum is refused.
	_, err = run(t, env, "todowrite", t.TempDir(), map[string]any{"todos": []map[string]any{{"content": "x", "status": "doing", "priority": "high"}}})
	var ia *InvalidArgumentsError
	if !errors.As(err, &ia) {
		t.Errorf("error %v, want invalid arguments", err)
	}
}

// answerer replies to (or rejects) every question asked on the bus, as a
// front end would.
func answerer(t *testing.T, q *Questions, b *bus.Bus, reject bool) (seen chan QuestionRequest, stop func()) {
	t.Helper()
	sub := b.Subscribe(bus.Filter{Types: []string{bus.QuestionAsked}}, 4)
	seen = make(chan QuestionRequest, 4)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-ctx.Done():
				return
			case e := <-sub.C:
				req := e.Properties.(QuestionRequest)
				seen <- req
				if len(q.Pending("ses_test")) != 1 {
					t.Errorf("pending %v", q.Pending(""))
				}
				if reject {
					_ = q.Reject(ctx, req.ID)
				} else {
					_ = q.Reply(ctx, req.ID, [][]string{{"Go"}, {"tests", "docs"}})
				}
			}
		}
	}()
	return seen, func() { cancel(); <-done; sub.Close() }
}

func TestQuestion(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	seen, stop := answerer(t, env.Questions, env.Bus, false)
	defer stop()
	input := map[string]any{"questions": []map[string]any{
		{"question": "Which language?", "header": "Language", "options": []map[string]any{{"label": "Go", "description": "Fast"}, {"label": "Rust", "description": "Safe"}}},
		{"question": "What else?", "header": "Extras", "multiple": true, "options": []map[string]any{{"label": "tests", "description": ""}, {"label": "docs", "description": ""}}},
	}}
	res, err := run(t, env, "question", t.TempDir(), input)
	if err != nil {
		t.Fatal(err)
	}
	want := `User has answered your questions: "Which language?"="Go", "What else?"="tests, docs". You can now continue with the user's answers in mind.`
	if res.Output != want || res.Title != "Asked 2 questions" {
		t.Errorf("output %q / %q", res.Output, res.Title)
	}
	req := <-seen
	if req.SessionID != "ses_test" || req.Tool == nil || req.Tool.CallID != "call_1" || len(req.Questions) != 2 || !req.Questions[1].Multiple {
		t.Errorf("request %+v", req)
	}
	if len(env.Questions.Pending("")) != 0 {
		t.Error("answered question still pending")
	}
}

func TestQuestionRejectedAndCancelled(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	input := map[string]any{"questions": []map[string]any{{"question": "Go on?", "header": "Continue", "options": []map[string]any{{"label": "Yes", "description": ""}}}}}
	_, stop := answerer(t, env.Questions, env.Bus, true)
	_, err := run(t, env, "question", t.TempDir(), input)
	stop()
	var rejected *QuestionRejectedError
	if !errors.As(err, &rejected) {
		t.Fatalf("error %v, want a rejection", err)
	}
	// Nobody answers: the call ends with its context.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	call, _ := newCall(t, "question", t.TempDir(), input)
	if _, err := toolByID(t, env, "question").Run(ctx, call); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v, want the deadline", err)
	}
	if err := env.Questions.Reply(context.Background(), "que_unknown", nil); err == nil {
		t.Error("replied to an unknown question")
	}
	// A header over 30 characters is refused.
	long := map[string]any{"questions": []map[string]any{{"question": "q", "header": strings.Repeat("h", 31), "options": []map[string]any{}}}}
	if _, err := run(t, env, "question", t.TempDir(), long); err == nil || !strings.Contains(err.Error(), "invalid arguments") {
		t.Errorf("error %v", err)
	}
}

func TestInvalidTool(t *testing.T) {
	t.Parallel()
	res, err := run(t, testEnv(t), "invalid", t.TempDir(), map[string]any{"tool": "Bassh", "error": "unknown tool Bassh"})
	if err != nil || res.Output != "The arguments provided to the tool are invalid: unknown tool Bassh" {
		t.Errorf("%v %+v", err, res)
	}
}
