package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/store"
)

// Todos stores each session's todo list; *store.Store satisfies it.
type Todos interface {
	SetTodos(ctx context.Context, sessionID string, todos []store.Todo) error
}

// TodoUpdated is the properties of a todo.updated event.
type TodoUpdated struct {
	SessionID string       `json:"sessionID"`
	Todos     []store.Todo `json:"todos"`
}

type todoItem struct {
	Content  string `json:"content" jsonschema:"The task, briefly, in the imperative"`
	Status   string `json:"status"`
	Priority string `json:"priority"`
}

type todoWriteParams struct {
	Todos []todoItem `json:"todos" jsonschema:"The whole updated list"`
}

func newTodoWrite(env Env) Tool {
	return Must(Def[todoWriteParams]{
		Traits:      Traits{Kind: KindThink, Contained: true},
		Summary:     todoSummary,
		ID:          "todowrite",
		Description: describe("todowrite"),
		Schema: func(s *jsonschema.Schema) {
			item := prop(s, "todos").Items
			prop(item, "status").Enum = []any{"pending", "in_progress", "completed", "cancelled"}
			prop(item, "priority").Enum = []any{"high", "medium", "low"}
		},
		Truncate: env.Truncator,
		Run: func(ctx context.Context, call *Call, p todoWriteParams) (*Result, error) {
			if env.Todos == nil {
				return nil, fmt.Errorf("the todo list is not available in this session")
			}
			if err := call.Ask(ctx, permission.Request{
				Permission: "todowrite",
				Patterns:   []string{"*"},
				Always:     []string{"*"},
				Metadata:   map[string]any{},
			}); err != nil {
				return nil, err
			}
			todos := make([]store.Todo, len(p.Todos))
			open := 0
			for i, t := range p.Todos {
				todos[i] = store.Todo{ID: strconv.Itoa(i + 1), Content: t.Content, Status: t.Status, Priority: t.Priority}
				if t.Status != "completed" && t.Status != "cancelled" {
					open++
				}
			}
			if err := env.Todos.SetTodos(ctx, call.SessionID, todos); err != nil {
				return nil, fmt.Errorf("saving the todo list: %w", err)
			}
			if env.Bus != nil {
				env.Bus.Publish(ctx, bus.Event{
					Type:       bus.TodoUpdated,
					SessionID:  call.SessionID,
					Properties: TodoUpdated{SessionID: call.SessionID, Todos: todos},
				})
			}
			out, err := json.MarshalIndent(p.Todos, "", "  ")
			if err != nil {
				return nil, err
			}
			return &Result{
				Title:    fmt.Sprintf("%d todos", open),
				Output:   string(out),
				Metadata: map[string]any{"todos": todos},
			}, nil
		},
	})
}

// todoSummary counts the done items of a call's todo list.
func todoSummary(p todoWriteParams, _ string) string {
	done := 0
	for _, t := range p.Todos {
		if t.Status == "completed" {
			done++
		}
	}
	return fmt.Sprintf("%d of %d done", done, len(p.Todos))
}
