package anthropic

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/llm/llmtest"
)

const testKey = "sk-ant-test-0123456789abcdef"

func newTest(t *testing.T, h http.HandlerFunc) (*Provider, *llmtest.Server) {
	t.Helper()
	return llmtest.Serve(t, h, func(url string, client *http.Client) *Provider {
		return New(Config{APIKey: testKey, BaseURL: url, HTTPClient: client})
	})
}

func simple() *llm.Request { return llmtest.Simple("claude-test") }

func TestFixtures(t *testing.T) {
	tests := []struct {
		file   string
		reason llm.FinishReason
	}{
		{"anthropic-text.sse", llm.FinishStop},
		{"anthropic-tool-use.sse", llm.FinishToolCalls},
		{"anthropic-thinking.sse", llm.FinishStop},
		{"anthropic-overloaded-error.sse", ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			p, srv := newTest(t, llmtest.SSE(llmtest.Wire(t, tt.file)))
			llmtest.CheckFixture(t, llmtest.Collect(p.Stream(context.Background(), simple())), tt.file, tt.reason)
			reqs := srv.Requests()
			if len(reqs) != 1 || reqs[0].Path != "/v1/messages" {
				t.Fatalf("requests = %+v", reqs)
			}
			if got := reqs[0].Header.Get("X-Api-Key"); got != testKey {
				t.Errorf("x-api-key = %q", got)
			}
		})
	}
}

func TestRequestShape(t *testing.T) {
	p, srv := newTest(t, llmtest.SSE(llmtest.Wire(t, "anthropic-text.sse")))
	req := llmtest.Conversation("claude-sonnet-4-5")
	req.Options.Headers = map[string]string{"X-Session-Id": "ses_test"}
	r := llmtest.Collect(p.Stream(context.Background(), req))
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	got := srv.Requests()[0]
	if got.Header.Get("X-Session-Id") != "ses_test" {
		t.Errorf("extra header not sent: %v", got.Header)
	}
	llmtest.Golden(t, "request.golden.json", got.Body)
	body := string(got.Body)
	if strings.Contains(body, "call:1|read.file") {
		t.Error("tool-call id was not sanitised")
	}
	if n := strings.Count(body, `"cache_control"`); n != 4 {
		t.Errorf("%d cache_control markers, want 4 (two system blocks, two messages)", n)
	}
}

func TestReasoningOptions(t *testing.T) {
	tests := []struct {
		name string
		r    *llm.Reasoning
		want []string
		not  []string
	}{
		{"budget", &llm.Reasoning{BudgetTokens: 16000}, []string{`"thinking":{"budget_tokens":16000,"type":"enabled"}`}, []string{`"temperature"`}},
		{"adaptive", &llm.Reasoning{Effort: "high"}, []string{`"type":"adaptive"`, `"effort":"high"`}, []string{`"temperature"`}},
		{"disabled", &llm.Reasoning{Disabled: true}, []string{`"thinking":{"type":"disabled"}`, `"temperature":0.5`}, nil},
		{"none", nil, []string{`"temperature":0.5`}, []string{`"thinking"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, srv := newTest(t, llmtest.SSE(llmtest.Wire(t, "anthropic-text.sse")))
			req := simple()
			temp := 0.5
			req.Options.Temperature = &temp
			req.Options.MaxOutputTokens = 8000
			req.Options.Reasoning = tt.r
			llmtest.Collect(p.Stream(context.Background(), req))
			body := string(srv.Requests()[0].Body)
			for _, w := range tt.want {
				if !strings.Contains(body, w) {
					t.Errorf("body lacks %s:\n%s", w, body)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(body, w) {
					t.Errorf("body has %s:\n%s", w, body)
				}
			}
			if tt.r != nil && tt.r.BudgetTokens >= 8000 && !strings.Contains(body, `"max_tokens":24000`) {
				t.Errorf("max_tokens not raised above the budget:\n%s", body)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	date := time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat)
	partial := llmtest.Wire(t, "anthropic-text.sse")[:400]
	tests := []struct {
		name     string
		h        http.HandlerFunc
		kind     llm.ErrorKind
		minDelay time.Duration
		maxDelay time.Duration
	}{
		{"401", llmtest.Status(401, nil, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`), llm.ErrAuth, 0, 0},
		{"403", llmtest.Status(403, nil, `{"type":"error","error":{"type":"permission_error","message":"no access"}}`), llm.ErrAuth, 0, 0},
		{"429 retry-after-ms", llmtest.Status(429, map[string]string{"retry-after-ms": "1500"}, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`), llm.ErrRetryable, 1500 * time.Millisecond, 1500 * time.Millisecond},
		{"429 retry-after seconds", llmtest.Status(429, map[string]string{"retry-after": "7"}, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`), llm.ErrRetryable, 7 * time.Second, 7 * time.Second},
		{"429 retry-after date", llmtest.Status(429, map[string]string{"retry-after": date}, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`), llm.ErrRetryable, 25 * time.Second, 31 * time.Second},
		{"500", llmtest.Status(500, nil, `{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`), llm.ErrRetryable, 0, 0},
		{"529 overloaded", llmtest.Status(529, nil, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`), llm.ErrRetryable, 0, 0},
		{"overflow", llmtest.Status(400, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 215000 tokens > 200000 maximum"}}`), llm.ErrContextOverflow, 0, 0},
		{"413", llmtest.Status(413, nil, `{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes."}}`), llm.ErrContextOverflow, 0, 0},
		{"400 other", llmtest.Status(400, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"messages: field required"}}`), llm.ErrOther, 0, 0},
		{"mid-stream error", llmtest.SSE(llmtest.Wire(t, "anthropic-overloaded-error.sse")), llm.ErrRetryable, 0, 0},
		{"connection reset", llmtest.ResetAfter(partial), llm.ErrRetryable, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := newTest(t, tt.h)
			r := llmtest.Collect(p.Stream(context.Background(), simple()))
			llmtest.CheckError(t, r, tt.kind, tt.minDelay, tt.maxDelay, testKey)
			if strings.Contains(r.Err.Body, testKey) {
				t.Errorf("error body leaks the key: %v", r.Err)
			}
		})
	}
}

func TestCancel(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	partial := llmtest.Wire(t, "anthropic-text.sse")[:600]
	p, _ := newTest(t, llmtest.Hang(partial))
	llmtest.CheckCancel(t, p, simple())
}

func TestStopEarly(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	p, _ := newTest(t, llmtest.SSE(llmtest.Wire(t, "anthropic-tool-use.sse")))
	n := 0
	for range p.Stream(context.Background(), simple()) {
		n++
		if n == 3 {
			break
		}
	}
}

func TestSanitize(t *testing.T) {
	for in, want := range map[string]string{
		"toolu_01ABC":      "toolu_01ABC",
		"call:1|read.file": "call_1_read_file",
		"a b/c":            "a_b_c",
		"é":                "_",
	} {
		if got := llm.SanitizeToolID(in); got != want {
			t.Errorf("SanitizeToolID(%q) = %q, want %q", in, got, want)
		}
	}
}
