package provider

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/llm/auth"
	"github.com/codeloop/codeloop/internal/llm/catalog"
	"github.com/codeloop/codeloop/internal/llm/llmtest"
	"github.com/codeloop/codeloop/internal/paths"
)

// TestLive talks to the real APIs of the providers whose key is set in the
// environment, and skips the others. Each one streams a short answer, then
// makes a tool call and answers from its result (so the tool-result shape
// is checked by the provider itself). Run:
//
//	ANTHROPIC_API_KEY=... OPENAI_API_KEY=... go test ./internal/provider -run TestLive -v
//
// CODELOOP_LIVE_MODEL_<PROVIDER> (e.g. CODELOOP_LIVE_MODEL_OPENAI=gpt-4.1-mini)
// picks the model; the default is the provider's small model.
func TestLive(t *testing.T) {
	if testing.Short() {
		t.Skip("live tests are skipped in -short mode")
	}
	cases := []struct{ provider, env string }{
		{"anthropic", "ANTHROPIC_API_KEY"},
		{"openai", "OPENAI_API_KEY"},
		{"google", "GEMINI_API_KEY"},
		{"openrouter", "OPENROUTER_API_KEY"},
		{"groq", "GROQ_API_KEY"},
		{"deepseek", "DEEPSEEK_API_KEY"},
		{"xai", "XAI_API_KEY"},
		{"mistral", "MISTRAL_API_KEY"},
	}
	for _, c := range cases {
		t.Run(c.provider, func(t *testing.T) {
			if os.Getenv(c.env) == "" {
				t.Skipf("%s is not set", c.env)
			}
			dir := t.TempDir()
			r := New(Options{Dirs: paths.Dirs{Data: dir, Cache: dir, State: dir, Home: dir}, NoLocalDetect: true,
				Catalog:   catalog.NewSource(catalog.Options{CacheDir: dir, Disabled: true}),
				Auth:      &auth.Store{Path: dir + "/auth.json"},
				UserAgent: "codeloop/live-test"})
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			model := c.provider + "/" + os.Getenv("CODELOOP_LIVE_MODEL_"+strings.ToUpper(c.provider))
			if strings.HasSuffix(model, "/") {
				var err error
				if model, err = r.Small(ctx, c.provider); err != nil {
					t.Fatal(err)
				}
			}
			t.Logf("model %s", model)
			p, m, err := r.Resolve(ctx, model)
			if err != nil {
				t.Fatal(err)
			}
			opts, err := r.Params(ctx, model, "")
			if err != nil {
				t.Fatal(err)
			}
			opts.MaxOutputTokens = min(opts.MaxOutputTokens, 2000)
			opts.CacheKey = "ses_live_test"

			req := &llm.Request{Model: m.ID, System: []string{"You are a terse test assistant."}, Options: opts,
				Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{{Type: llm.PartText, Text: "Reply with the single word: pong"}}}}}
			res := llmtest.Collect(p.Stream(ctx, req))
			if res.Err != nil {
				t.Fatalf("text: %v", res.Err)
			}
			if !strings.Contains(strings.ToLower(res.Text), "pong") || res.Finish.Usage.Input == 0 {
				t.Errorf("text %q, finish %+v", res.Text, res.Finish)
			}

			req.Tools = []llm.ToolSpec{{Name: "echo", Description: "Echo the given text back.",
				Schema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)}}
			req.Options.ToolChoice = "required"
			req.Messages = []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{{Type: llm.PartText, Text: "Call the echo tool with the text 'hi'."}}}}
			res = llmtest.Collect(p.Stream(ctx, req))
			if res.Err != nil {
				t.Fatalf("tool call: %v", res.Err)
			}
			if len(res.ToolCalls) == 0 || res.Finish.Reason != llm.FinishToolCalls {
				t.Fatalf("no tool call: %+v", res.Finish)
			}
			call := res.ToolCalls[0]
			var assistant []llm.Part
			if res.Reasoning != "" || res.Signature != "" || res.Encrypted != "" || res.Redacted != "" {
				assistant = append(assistant, llm.Part{Type: llm.PartReasoning, Text: res.Reasoning, Signature: res.Signature,
					Encrypted: res.Encrypted, Redacted: res.Redacted, ItemID: reasoningItem(res.Events)})
			}
			assistant = append(assistant, llm.Part{Type: llm.PartToolCall, ToolCallID: call.ID, ToolName: call.Name,
				Input: json.RawMessage(call.Input), Signature: call.Signature, ItemID: call.ItemID})
			req.Messages = append(req.Messages,
				llm.Message{Role: llm.RoleAssistant, Parts: assistant},
				llm.Message{Role: llm.RoleTool, Parts: []llm.Part{{Type: llm.PartToolResult, ToolCallID: call.ID, ToolName: call.Name, Output: "hi"}}})
			req.Options.ToolChoice = "none"
			res = llmtest.Collect(p.Stream(ctx, req))
			if res.Err != nil {
				t.Fatalf("after the tool result: %v", res.Err)
			}
			if res.Text == "" {
				t.Errorf("no answer after the tool result: %+v", res.Finish)
			}
		})
	}
}

func reasoningItem(evs []llm.Event) string {
	for _, e := range evs {
		if e.Type == llm.EventReasoningEnd && e.ItemID != "" {
			return e.ItemID
		}
	}
	return ""
}
