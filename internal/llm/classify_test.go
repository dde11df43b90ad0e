package llm

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		h    map[string]string
		want time.Duration
	}{
		{"none", nil, 0},
		{"ms", map[string]string{"retry-after-ms": "1500"}, 1500 * time.Millisecond},
		{"fractional ms", map[string]string{"retry-after-ms": "2.5"}, 2500 * time.Microsecond},
		{"ms wins", map[string]string{"retry-after-ms": "200", "retry-after": "9"}, 200 * time.Millisecond},
		{"seconds", map[string]string{"retry-after": "7"}, 7 * time.Second},
		{"fractional seconds", map[string]string{"retry-after": "0.25"}, 250 * time.Millisecond},
		{"date", map[string]string{"retry-after": now.Add(42 * time.Second).Format(http.TimeFormat)}, 42 * time.Second},
		{"past date", map[string]string{"retry-after": now.Add(-time.Minute).Format(http.TimeFormat)}, 0},
		{"garbage", map[string]string{"retry-after": "soon"}, 0},
		{"negative", map[string]string{"retry-after": "-3"}, 0},
		{"huge", map[string]string{"retry-after": "99999999999"}, maxDelay},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.h {
				h.Set(k, v)
			}
			if got := RetryAfter(h, now); got != tt.want {
				t.Errorf("RetryAfter = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestOverflowWordings(t *testing.T) {
	yes := []string{
		"prompt is too long: 215000 tokens > 200000 maximum",                                                      // Anthropic
		"Input is too long for requested model.",                                                                  // Bedrock
		"Your input exceeds the context window of this model. Please adjust your input and try again.",            // OpenAI Responses
		"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.", // OpenAI chat, vLLM
		"context_length_exceeded", // OpenAI code
		"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",                                                                            // Gemini
		"This model's maximum prompt length is 131072 but the request contains 140000 tokens.",                                                                               // xAI
		"Please reduce the length of the messages or completion.",                                                                                                            // Groq
		"the request exceeds the available context size, try increasing it",                                                                                                  // llama.cpp
		"Trying to keep the first 5000 tokens when context the overflows. However, the model is loaded with context length of 4096 which is greater than the context length", // LM Studio
		"prompt too long; exceeded max context length by 1200 tokens",                                                                                                        // Ollama
		"This model's context length is only 8192 tokens, your request has 9000",                                                                                             // vLLM
		"Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length",                                                             // Mistral
		"Invalid request: Your request exceeded model token limit: 262144",                                                                                                   // Moonshot
		"context window exceeds limit", // MiniMax
	}
	for _, s := range yes {
		if !IsContextOverflow(s) {
			t.Errorf("not recognised as overflow: %q", s)
		}
	}
	no := []string{
		"Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000, Used 29000, Requested 2000.",
		"Overloaded",
		"messages.1.content: field required",
	}
	for _, s := range no {
		if IsContextOverflow(s) {
			t.Errorf("wrongly recognised as overflow: %q", s)
		}
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name string
		f    Failure
		kind ErrorKind
	}{
		{"401", Failure{StatusCode: 401}, ErrAuth},
		{"403", Failure{StatusCode: 403}, ErrAuth},
		{"gemini bad key", Failure{StatusCode: 400, Body: []byte(`{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}`)}, ErrAuth},
		{"429", Failure{StatusCode: 429}, ErrRetryable},
		{"429 with token words", Failure{StatusCode: 429, Message: "Request too large for gpt-4: maximum context length reached for your rate limit"}, ErrRetryable},
		{"500", Failure{StatusCode: 500}, ErrRetryable},
		{"503", Failure{StatusCode: 503}, ErrRetryable},
		{"529", Failure{StatusCode: 529}, ErrRetryable},
		{"400 plain", Failure{StatusCode: 400, Message: "model unavailable in this region, try again later"}, ErrOther},
		{"stream overloaded", Failure{Type: "overloaded_error", Message: "Overloaded"}, ErrRetryable},
		{"stream rate limit text", Failure{Message: "Rate limit exceeded, please slow down"}, ErrRetryable},
		{"resource exhausted", Failure{StatusCode: 400, Type: "RESOURCE_EXHAUSTED"}, ErrRetryable},
		{"overflow", Failure{StatusCode: 400, Message: "prompt is too long"}, ErrContextOverflow},
		{"content filter", Failure{StatusCode: 400, Body: []byte(`{"error":{"code":"content_filter","message":"The response was filtered"}}`)}, ErrContentFilter},
		{"reset", Failure{Err: fmt.Errorf("read: %w", syscall.ECONNRESET)}, ErrRetryable},
		{"eof", Failure{Err: io.ErrUnexpectedEOF}, ErrRetryable},
		{"other", Failure{Err: errors.New("bad json")}, ErrOther},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(tt.f); got.Kind != tt.kind {
				t.Errorf("kind = %q, want %q (%v)", got.Kind, tt.kind, got)
			}
		})
	}
}

func TestClassifyRedacts(t *testing.T) {
	key := "sk-proj-abcdefghijklmnop"
	e := Classify(Failure{StatusCode: 401, Body: []byte(`{"error":{"message":"Incorrect API key provided: ` + key + `"}}`),
		Err: errors.New("POST with key " + key), Secrets: []string{key}})
	for _, s := range []string{e.Error(), e.Body, e.Message, e.Err.Error()} {
		if strings.Contains(s, key) {
			t.Errorf("key leaked in %q", s)
		}
	}
}

func TestGoogleRetryDelay(t *testing.T) {
	e := Classify(Failure{StatusCode: 429, Body: []byte(`{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"37s"}]}}`)})
	if e.Kind != ErrRetryable || e.RetryAfter != 37*time.Second {
		t.Errorf("got %q %v, want retryable 37s", e.Kind, e.RetryAfter)
	}
}

func TestDropEmpty(t *testing.T) {
	in := []Message{
		{Role: RoleUser, Parts: []Part{{Type: PartText, Text: " "}}},
		{Role: RoleAssistant, Parts: []Part{{Type: PartReasoning}, {Type: PartText, Text: "ok"}, {Type: PartReasoning, Signature: "s"}}},
		{Role: RoleUser},
	}
	out := DropEmpty(in)
	if len(out) != 1 || len(out[0].Parts) != 2 || out[0].Parts[0].Text != "ok" || out[0].Parts[1].Signature != "s" {
		t.Errorf("DropEmpty = %+v", out)
	}
	if len(in[1].Parts) != 3 {
		t.Error("DropEmpty modified its input")
	}
}
