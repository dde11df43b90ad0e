package google

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

const testKey = "AIzaTest0123456789abcdefghij"

func newTest(t *testing.T, h http.HandlerFunc) (*Provider, *llmtest.Server) {
	t.Helper()
	return llmtest.Serve(t, h, func(url string, client *http.Client) *Provider {
		return New(Config{APIKey: testKey, BaseURL: url, HTTPClient: client})
	})
}

func simple() *llm.Request { return llmtest.Simple("gemini-2.5-flash") }

func TestFixtures(t *testing.T) {
	tests := []struct {
		file   string
		reason llm.FinishReason
	}{
		{"gemini-text.sse", llm.FinishStop},
		{"gemini-text-cookbook.sse", llm.FinishStop},
		{"gemini-function-call.sse", llm.FinishToolCalls},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			p, srv := newTest(t, llmtest.SSE(llmtest.Wire(t, tt.file)))
			llmtest.CheckFixture(t, llmtest.Collect(p.Stream(context.Background(), simple())), tt.file, tt.reason)
			req := srv.Requests()[0]
			if req.Path != "/v1beta/models/gemini-2.5-flash:streamGenerateContent" || req.RawQuery != "alt=sse" {
				t.Errorf("request to %s?%s", req.Path, req.RawQuery)
			}
			if req.Header.Get("x-goog-api-key") != testKey {
				t.Errorf("key header = %q", req.Header.Get("x-goog-api-key"))
			}
		})
	}
}

func TestRequestShape(t *testing.T) {
	p, srv := newTest(t, llmtest.SSE(llmtest.Wire(t, "gemini-text.sse")))
	req := llmtest.Conversation("gemini-3-pro-preview")
	// A Gemini signature on the earlier call, as this adapter reports it.
	req.Messages[1].Parts[0].Signature = "CiQBVKhc7vB+vaaq6rA2a1P2ZD9tQm4fYk4WqZ3pLx8hNqR0ZwE="
	req.Options.Reasoning = &llm.Reasoning{Effort: "high"}
	if r := llmtest.Collect(p.Stream(context.Background(), req)); r.Err != nil {
		t.Fatal(r.Err)
	}
	body := srv.Requests()[0].Body
	llmtest.Golden(t, "request.golden.json", body)
	if !strings.Contains(string(body), `"thoughtSignature":"CiQBVKhc7vB+vaaq6rA2a1P2ZD9tQm4fYk4WqZ3pLx8hNqR0ZwE="`) {
		t.Error("thought signature not sent back byte for byte")
	}
}

func TestUnsignedCallOnGemini3(t *testing.T) {
	p, srv := newTest(t, llmtest.SSE(llmtest.Wire(t, "gemini-text.sse")))
	req := llmtest.Conversation("gemini-3-pro-preview")
	req.Messages[1].Parts[0].Signature = "" // history from another model
	llmtest.Collect(p.Stream(context.Background(), req))
	var body struct {
		Contents []struct {
			Role  string           `json:"role"`
			Parts []map[string]any `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range body.Contents {
		for _, part := range c.Parts {
			if part["functionCall"] != nil {
				found = true
				if part["thoughtSignature"] == nil {
					t.Error("unsigned call sent to Gemini 3 without the placeholder signature")
				}
			}
		}
	}
	if !found {
		t.Fatal("no function call in the request")
	}
}

func TestReasoningStream(t *testing.T) {
	body := "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Plan: \",\"thought\":true}]}}]}\r\n\r\n" +
		"data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"answer.\",\"thought\":true,\"thoughtSignature\":\"c2lnMQ==\"}]}}]}\r\n\r\n" +
		"data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Done\"}]},\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":100,\"cachedContentTokenCount\":60,\"candidatesTokenCount\":5,\"thoughtsTokenCount\":9}}\r\n\r\n"
	p, _ := newTest(t, llmtest.SSE([]byte(body)))
	r := llmtest.Collect(p.Stream(context.Background(), simple()))
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if r.Reasoning != "Plan: answer." || r.Signature != "c2lnMQ==" || r.Text != "Done" {
		t.Errorf("reasoning %q sig %q text %q", r.Reasoning, r.Signature, r.Text)
	}
	want := llm.Usage{Input: 40, CacheRead: 60, Output: 5, Reasoning: 9}
	if r.Finish.Usage != want {
		t.Errorf("usage = %+v, want %+v", r.Finish.Usage, want)
	}
}

func TestErrors(t *testing.T) {
	date := time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat)
	partial := llmtest.Wire(t, "gemini-text.sse")[:900]
	tests := []struct {
		name     string
		h        http.HandlerFunc
		kind     llm.ErrorKind
		min, max time.Duration
	}{
		{"400 bad key", llmtest.Status(400, nil, `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}`), llm.ErrAuth, 0, 0},
		{"401", llmtest.Status(401, nil, `{"error":{"code":401,"message":"Request had invalid authentication credentials.","status":"UNAUTHENTICATED"}}`), llm.ErrAuth, 0, 0},
		{"403", llmtest.Status(403, nil, `{"error":{"code":403,"message":"Permission denied.","status":"PERMISSION_DENIED"}}`), llm.ErrAuth, 0, 0},
		{"429 retry info", llmtest.Status(429, nil, `{"error":{"code":429,"message":"Resource has been exhausted","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"37s"}]}}`), llm.ErrRetryable, 37 * time.Second, 37 * time.Second},
		{"429 retry-after-ms", llmtest.Status(429, map[string]string{"retry-after-ms": "900"}, `{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED"}}`), llm.ErrRetryable, 900 * time.Millisecond, 900 * time.Millisecond},
		{"429 retry-after seconds", llmtest.Status(429, map[string]string{"retry-after": "4"}, `{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED"}}`), llm.ErrRetryable, 4 * time.Second, 4 * time.Second},
		{"429 retry-after date", llmtest.Status(429, map[string]string{"retry-after": date}, `{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED"}}`), llm.ErrRetryable, 25 * time.Second, 31 * time.Second},
		{"500", llmtest.Status(500, nil, `{"error":{"code":500,"message":"Internal error encountered.","status":"INTERNAL"}}`), llm.ErrRetryable, 0, 0},
		{"503 overloaded", llmtest.Status(503, nil, `{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`), llm.ErrRetryable, 0, 0},
		{"overflow", llmtest.Status(400, nil, `{"error":{"code":400,"message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}`), llm.ErrContextOverflow, 0, 0},
		{"mid-stream error", llmtest.SSE(append(append([]byte{}, partial[:strings.LastIndex(string(partial), "\r\n\r\n")+4]...),
			[]byte("data: {\"error\":{\"code\":503,\"message\":\"The model is overloaded.\",\"status\":\"UNAVAILABLE\"}}\r\n\r\n")...)), llm.ErrRetryable, 0, 0},
		{"connection reset", llmtest.ResetAfter(partial), llm.ErrRetryable, 0, 0},
		{"truncated", llmtest.SSE(partial[:strings.LastIndex(string(partial), "\r\n\r\n")+4]), llm.ErrRetryable, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := newTest(t, tt.h)
			llmtest.CheckError(t, llmtest.Collect(p.Stream(context.Background(), simple())), tt.kind, tt.min, tt.max, testKey)
		})
	}
}

func TestCancel(t *testing.T) {
	// opencensus, a dependency of the SDK, starts a worker at init.
	t.Cleanup(func() { goleak.VerifyNone(t, goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start")) })
	p, _ := newTest(t, llmtest.Hang(llmtest.Wire(t, "gemini-text.sse")[:900]))
	llmtest.CheckCancel(t, p, simple())
}
