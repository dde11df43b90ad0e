package openai

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/llm/llmtest"
)

const testKey = "sk-test-0123456789abcdefghij"

type flavour struct {
	name string
	new  func(Config) llm.Provider
	path string
}

var (
	chatFlavour      = flavour{"chat", func(c Config) llm.Provider { return NewChat(c) }, "/chat/completions"}
	responsesFlavour = flavour{"responses", func(c Config) llm.Provider { return NewResponses(c) }, "/responses"}
)

func newTest(t *testing.T, f flavour, cfg Config, h http.HandlerFunc) (llm.Provider, *llmtest.Server) {
	t.Helper()
	return llmtest.Serve(t, h, func(url string, client *http.Client) llm.Provider {
		cfg.APIKey = testKey
		cfg.BaseURL = url + "/v1"
		cfg.HTTPClient = client
		return f.new(cfg)
	})
}

func simple() *llm.Request { return llmtest.Simple("gpt-test") }

func TestFixtures(t *testing.T) {
	tests := []struct {
		f      flavour
		file   string
		reason llm.FinishReason
	}{
		{chatFlavour, "openai-chat-text.sse", llm.FinishStop},
		{chatFlavour, "openai-chat-tool-calls.sse", llm.FinishToolCalls},
		{responsesFlavour, "openai-responses-text.sse", llm.FinishStop},
		{responsesFlavour, "openai-responses-tool-call.sse", llm.FinishToolCalls},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			p, srv := newTest(t, tt.f, Config{}, llmtest.SSE(llmtest.Wire(t, tt.file)))
			llmtest.CheckFixture(t, llmtest.Collect(p.Stream(context.Background(), simple())), tt.file, tt.reason)
			req := srv.Requests()[0]
			if req.Path != "/v1"+tt.f.path {
				t.Errorf("path = %q", req.Path)
			}
			if got := req.Header.Get("Authorization"); got != "Bearer "+testKey {
				t.Errorf("authorization = %q", got)
			}
		})
	}
}

func TestRequestShape(t *testing.T) {
	for _, f := range []flavour{chatFlavour, responsesFlavour} {
		t.Run(f.name, func(t *testing.T) {
			file := "openai-chat-text.sse"
			if f.name == "responses" {
				file = "openai-responses-text.sse"
			}
			cfg := Config{Headers: map[string]string{"X-Title": "codeloop"}}
			if f.name == "chat" {
				cfg.ReasoningField = "reasoning_content"
			}
			p, srv := newTest(t, f, cfg, llmtest.SSE(llmtest.Wire(t, file)))
			req := llmtest.Conversation("gpt-5")
			req.Options.Reasoning = &llm.Reasoning{Effort: "medium", Summary: "auto"}
			if r := llmtest.Collect(p.Stream(context.Background(), req)); r.Err != nil {
				t.Fatal(r.Err)
			}
			got := srv.Requests()[0]
			if got.Header.Get("X-Title") != "codeloop" {
				t.Errorf("configured header not sent")
			}
			llmtest.Golden(t, f.name+".golden.json", got.Body)
			var body map[string]any
			if err := json.Unmarshal(got.Body, &body); err != nil {
				t.Fatal(err)
			}
			switch f.name {
			case "chat":
				so, _ := body["stream_options"].(map[string]any)
				if so["include_usage"] != true {
					t.Errorf("stream_options.include_usage not set: %v", body["stream_options"])
				}
			case "responses":
				if body["store"] != false {
					t.Errorf("store = %v, want false", body["store"])
				}
				if body["prompt_cache_key"] != "ses_test" {
					t.Errorf("prompt_cache_key = %v", body["prompt_cache_key"])
				}
				if !strings.Contains(string(got.Body), `"include":["reasoning.encrypted_content"]`) {
					t.Error("encrypted reasoning not requested")
				}
				if !strings.Contains(string(got.Body), `"encrypted_content":"enc-xyz"`) {
					t.Error("encrypted reasoning of the previous turn not sent back")
				}
			}
		})
	}
}

func TestChatQuirks(t *testing.T) {
	t.Run("reasoning_content and missing ids", func(t *testing.T) {
		body := "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"reasoning_content\":\"Think\"}}]}\n\n" +
			"data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"ing.\"}}]}\n\n" +
			"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Done\"}}]}\n\n" +
			"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"name\":\"bash\",\"arguments\":\"{\\\"command\\\":\"}}]}}]}\n\n" +
			"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\"ls\\\"}\"}}]},\"finish_reason\":\"stop\"}]}\n\n" +
			"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":50,\"completion_tokens\":20,\"prompt_cache_hit_tokens\":30,\"completion_tokens_details\":{\"reasoning_tokens\":5}}}\n\n" +
			"data: [DONE]\n\n"
		p, _ := newTest(t, chatFlavour, Config{}, llmtest.SSE([]byte(body)))
		r := llmtest.Collect(p.Stream(context.Background(), simple()))
		if r.Err != nil {
			t.Fatal(r.Err)
		}
		if r.Reasoning != "Thinking." || r.Text != "Done" {
			t.Errorf("reasoning %q text %q", r.Reasoning, r.Text)
		}
		if len(r.ToolCalls) != 1 || r.ToolCalls[0].Input != `{"command":"ls"}` || r.ToolCalls[0].ID == "" {
			t.Fatalf("calls = %+v", r.ToolCalls)
		}
		if r.Finish.Reason != llm.FinishToolCalls {
			t.Errorf("reason = %q", r.Finish.Reason)
		}
		want := llm.Usage{Input: 20, CacheRead: 30, Output: 15, Reasoning: 5}
		if r.Finish.Usage != want {
			t.Errorf("usage = %+v, want %+v", r.Finish.Usage, want)
		}
	})
	t.Run("openrouter reasoning field", func(t *testing.T) {
		body := "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning\":\"Hm.\"}}]}\n\n" +
			"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\n" +
			"data: [DONE]\n\n"
		p, _ := newTest(t, chatFlavour, Config{}, llmtest.SSE([]byte(body)))
		r := llmtest.Collect(p.Stream(context.Background(), simple()))
		if r.Err != nil || r.Reasoning != "Hm." || r.Text != "Hi" || r.Finish.Reason != llm.FinishStop {
			t.Fatalf("got %+v", r)
		}
	})
}

func TestErrors(t *testing.T) {
	date := time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat)
	chatPartial := llmtest.Wire(t, "openai-chat-text.sse")[:700]
	respPartial := llmtest.Wire(t, "openai-responses-text.sse")[:1500]
	overflow := func(msg string) http.HandlerFunc {
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}})
		return llmtest.Status(400, nil, string(b))
	}
	rate := `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`
	tests := []struct {
		name     string
		f        flavour
		h        http.HandlerFunc
		kind     llm.ErrorKind
		min, max time.Duration
	}{
		{"401", chatFlavour, llmtest.Status(401, nil, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`), llm.ErrAuth, 0, 0},
		{"429 retry-after-ms", chatFlavour, llmtest.Status(429, map[string]string{"retry-after-ms": "250"}, rate), llm.ErrRetryable, 250 * time.Millisecond, 250 * time.Millisecond},
		{"429 retry-after seconds", responsesFlavour, llmtest.Status(429, map[string]string{"retry-after": "3"}, rate), llm.ErrRetryable, 3 * time.Second, 3 * time.Second},
		{"429 retry-after date", chatFlavour, llmtest.Status(429, map[string]string{"retry-after": date}, rate), llm.ErrRetryable, 25 * time.Second, 31 * time.Second},
		{"500", responsesFlavour, llmtest.Status(500, nil, `{"error":{"message":"The server had an error","type":"server_error"}}`), llm.ErrRetryable, 0, 0},
		{"503 overloaded", chatFlavour, llmtest.Status(503, nil, `{"error":{"message":"The engine is currently overloaded"}}`), llm.ErrRetryable, 0, 0},
		{"openai overflow code", chatFlavour, llmtest.Status(400, nil, `{"error":{"message":"too long","type":"invalid_request_error","code":"context_length_exceeded"}}`), llm.ErrContextOverflow, 0, 0},
		{"openai maximum context length", chatFlavour, overflow("This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens."), llm.ErrContextOverflow, 0, 0},
		{"responses context window", responsesFlavour, overflow("Your input exceeds the context window of this model. Please adjust your input and try again."), llm.ErrContextOverflow, 0, 0},
		{"ollama overflow", chatFlavour, overflow("prompt too long; exceeded max context length by 1200 tokens"), llm.ErrContextOverflow, 0, 0},
		{"llama.cpp overflow", chatFlavour, overflow("the request exceeds the available context size, try increasing it"), llm.ErrContextOverflow, 0, 0},
		{"vllm overflow", chatFlavour, overflow("This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion)."), llm.ErrContextOverflow, 0, 0},
		{"lmstudio overflow", chatFlavour, overflow("The number of tokens to keep from the initial prompt is greater than the context length."), llm.ErrContextOverflow, 0, 0},
		{"groq overflow", chatFlavour, overflow("Please reduce the length of the messages or completion."), llm.ErrContextOverflow, 0, 0},
		{"content filter", chatFlavour, llmtest.Status(400, nil, `{"error":{"message":"The response was filtered due to the prompt triggering Azure OpenAI's content management policy.","code":"content_filter"}}`), llm.ErrContentFilter, 0, 0},
		{"chat mid-stream error", chatFlavour, llmtest.SSE(append(append([]byte{}, chatPartial[:strings.LastIndex(string(chatPartial), "\n\n")+2]...),
			[]byte("data: {\"error\":{\"message\":\"Provider returned error: overloaded\",\"code\":502}}\n\n")...)), llm.ErrRetryable, 0, 0},
		{"responses error event", responsesFlavour, llmtest.SSE([]byte("event: error\ndata: {\"type\":\"error\",\"code\":\"server_error\",\"message\":\"The server had an error\",\"param\":null,\"sequence_number\":1}\n\n")), llm.ErrRetryable, 0, 0},
		{"responses failed", responsesFlavour, llmtest.SSE([]byte("event: response.failed\ndata: {\"type\":\"response.failed\",\"response\":{\"id\":\"resp_1\",\"status\":\"failed\",\"error\":{\"code\":\"rate_limit_exceeded\",\"message\":\"Rate limit reached\"}}}\n\n")), llm.ErrRetryable, 0, 0},
		{"chat connection reset", chatFlavour, llmtest.ResetAfter(chatPartial), llm.ErrRetryable, 0, 0},
		{"responses connection reset", responsesFlavour, llmtest.ResetAfter(respPartial), llm.ErrRetryable, 0, 0},
		{"responses truncated", responsesFlavour, llmtest.SSE(respPartial[:strings.LastIndex(string(respPartial), "\n\n")+2]), llm.ErrRetryable, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := newTest(t, tt.f, Config{}, tt.h)
			llmtest.CheckError(t, llmtest.Collect(p.Stream(context.Background(), simple())), tt.kind, tt.min, tt.max, testKey)
		})
	}
}

func TestCancel(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	for _, tt := range []struct {
		f    flavour
		file string
		n    int
	}{{chatFlavour, "openai-chat-text.sse", 700}, {responsesFlavour, "openai-responses-text.sse", 2600}} {
		t.Run(tt.f.name, func(t *testing.T) {
			p, _ := newTest(t, tt.f, Config{}, llmtest.Hang(llmtest.Wire(t, tt.file)[:tt.n]))
			llmtest.CheckCancel(t, p, simple())
		})
	}
}

func TestAzureKeyHeader(t *testing.T) {
	p, srv := newTest(t, responsesFlavour, Config{APIKeyHeader: "api-key", Query: map[string]string{"api-version": "v1"}},
		llmtest.SSE(llmtest.Wire(t, "openai-responses-text.sse")))
	llmtest.Collect(p.Stream(context.Background(), simple()))
	req := srv.Requests()[0]
	if req.Header.Get("api-key") != testKey || req.Header.Get("Authorization") != "" {
		t.Errorf("headers = %v", req.Header)
	}
	if req.RawQuery != "api-version=v1" {
		t.Errorf("query = %q", req.RawQuery)
	}
}

func TestMistralRules(t *testing.T) {
	p, srv := newTest(t, chatFlavour, Config{Mistral: true}, llmtest.SSE(llmtest.Wire(t, "openai-chat-text.sse")))
	llmtest.Collect(p.Stream(context.Background(), llmtest.Conversation("devstral-medium")))
	var body struct {
		Messages []struct {
			Role       string `json:"role"`
			Content    any    `json:"content"`
			ToolCallID string `json:"tool_call_id"`
			ToolCalls  []struct {
				ID string `json:"id"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range body.Messages {
		roles = append(roles, m.Role)
		for _, c := range m.ToolCalls {
			if c.ID != "call1read" {
				t.Errorf("call id = %q, want call1read", c.ID)
			}
		}
		if m.Role == "tool" && m.ToolCallID != "call1read" {
			t.Errorf("result id = %q", m.ToolCallID)
		}
	}
	if got := strings.Join(roles, ","); got != "system,user,assistant,tool,assistant,user,user" {
		t.Errorf("roles = %s", got)
	}
}
