package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/llm/openai"
	"github.com/codeloop/codeloop/internal/permission"
)

func TestCreate(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), ".codeloop", "agents")

	// Without a model the description becomes the agent's description and
	// the heart of its prompt.
	p, err := Create(ctx, CreateOptions{Dir: dir, Description: "Writes release notes from git history", Mode: ModeSubagent,
		Model: "anthropic/claude-haiku-4-5", Tools: []string{"read", "bash", "glob"}, Taken: []string{"build"}})
	if err != nil {
		t.Fatal(err)
	}
	if p != filepath.Join(dir, "writes-release-notes.md") {
		t.Errorf("path = %s", p)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	def, err := ParseAgentFile(p, data, "writes-release-notes", nil)
	if err != nil {
		t.Fatalf("the written file does not parse: %v\n%s", err, data)
	}
	a := def.Agent
	if a.Description != "Writes release notes from git history" || a.Mode != "subagent" || a.Model != "anthropic/claude-haiku-4-5" ||
		!strings.Contains(a.Prompt, "Writes release notes from git history") {
		t.Errorf("agent = %+v", a)
	}
	rules := rulesFromConfig(a.Permission, "")
	for tool, want := range map[string]permission.Action{"read": permission.Ask, "bash": permission.Ask, "glob": permission.Ask, "edit": permission.Deny, "webfetch": permission.Deny, "task": permission.Deny} {
		if r, _ := permission.Evaluate(tool, "x", rules); r.Action != want {
			t.Errorf("%s = %s, want %s (unset means the defaults decide)", tool, r.Action, want)
		}
	}

	// With a drafter, the draft supplies name, description and prompt; a
	// given name wins.
	draft := func(_ context.Context, req DraftRequest) (Draft, error) {
		if req.Request != "check licenses" || len(req.Taken) != 1 {
			t.Errorf("draft request = %+v", req)
		}
		return Draft{Name: "license-checker", Description: "Use this agent when dependencies change.", Prompt: "You check licenses."}, nil
	}
	p, err = Create(ctx, CreateOptions{Dir: dir, Description: "check licenses", Draft: draft, Taken: []string{"build"}})
	if err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(p)
	if filepath.Base(p) != "license-checker.md" || !strings.Contains(string(data), "description: Use this agent when dependencies change.\nmode: all\n---\nYou check licenses.\n") {
		t.Errorf("%s:\n%s", p, data)
	}
	p, err = Create(ctx, CreateOptions{Dir: dir, Name: "lic", Description: "check licenses", Draft: draft, Taken: []string{"build"}})
	if err != nil || filepath.Base(p) != "lic.md" {
		t.Errorf("named: %s, %v", p, err)
	}

	for _, c := range []struct {
		o    CreateOptions
		want string
	}{
		{CreateOptions{Dir: dir, Description: " "}, "describe what the agent should do"},
		{CreateOptions{Dir: dir, Description: "x", Name: "build", Taken: []string{"build"}}, `an agent called "build" already exists`},
		{CreateOptions{Dir: dir, Description: "x", Name: "lic"}, "lic.md already exists"},
		{CreateOptions{Dir: dir, Description: "x", Name: "Bad Name"}, "use lowercase letters"},
		{CreateOptions{Dir: dir, Description: "x", Mode: "sometimes"}, `mode "sometimes"`},
		{CreateOptions{Dir: dir, Description: "x", Tools: []string{"teleport"}}, `unknown tool "teleport"`},
		{CreateOptions{Dir: dir, Description: "x", Draft: func(context.Context, DraftRequest) (Draft, error) { return Draft{}, fmt.Errorf("no key") }}, "drafting the agent: no key"},
	} {
		if _, err := Create(ctx, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Create(%+v) = %v, want %q", c.o, err, c.want)
		}
	}
}

// chatServer answers Chat Completions requests with content streamed in
// two chunks and records the request body.
func chatServer(t *testing.T, content string, body *map[string]any) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(raw, body); err != nil {
			t.Errorf("request body: %v", err)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		half := len(content) / 2
		for _, piece := range []string{content[:half], content[half:]} {
			chunk, _ := json.Marshal(map[string]any{"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
				"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": piece}, "finish_reason": nil}}})
			fmt.Fprintf(w, "data: %s\n\n", chunk)
		}
		stop, _ := json.Marshal(map[string]any{"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
			"choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": "stop"}}})
		fmt.Fprintf(w, "data: %s\n\ndata: [DONE]\n\n", stop)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestModelDrafter(t *testing.T) {
	answer := "```json\n" + `{"identifier": "api-docs", "whenToUse": "Use this agent when the API changes.", "systemPrompt": "You document APIs."}` + "\n```"
	var body map[string]any
	srv := chatServer(t, answer, &body)
	p := openai.NewChat(openai.Config{APIKey: "k", BaseURL: srv.URL})
	d, err := ModelDrafter(p, "gpt-test")(context.Background(), DraftRequest{Request: "document the API", Taken: []string{"build", "plan"}})
	if err != nil {
		t.Fatal(err)
	}
	if d != (Draft{Name: "api-docs", Description: "Use this agent when the API changes.", Prompt: "You document APIs."}) {
		t.Errorf("draft = %+v", d)
	}
	raw, _ := json.Marshal(body)
	for _, want := range []string{`"model":"gpt-test"`, `"temperature":0.3`, "document the API", "build, plan", "You design agents for codeloop"} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("request lacks %q: %s", want, raw)
		}
	}

	srv = chatServer(t, "I cannot help with that.", &body)
	if _, err := ModelDrafter(openai.NewChat(openai.Config{APIKey: "k", BaseURL: srv.URL}), "m")(context.Background(), DraftRequest{Request: "x"}); err == nil || !strings.Contains(err.Error(), "no JSON object") {
		t.Errorf("prose answer: %v", err)
	}
}
