package openai

import (
	"context"
	"testing"

	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/llm/llmtest"
)

// TestChatStreamCutShort checks that a Chat Completions stream that closes
// cleanly without a finish reason or usage ends in a retryable error, not
// in a truncated answer taken as complete.
func TestChatStreamCutShort(t *testing.T) {
	tests := []struct {
		name string
		body string
		err  bool
	}{
		{"cut after text", "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Half an ans\"}}]}\n\n", true},
		{"cut after a call", "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"read\",\"arguments\":\"{\"}}]}}]}\n\n", true},
		{"finish reason", "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\n", false},
		{"usage only", "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := newTest(t, chatFlavour, Config{}, llmtest.SSE([]byte(tt.body)))
			r := llmtest.Collect(p.Stream(context.Background(), simple()))
			if !tt.err {
				if r.Err != nil || r.Finish == nil || r.Finish.Reason != llm.FinishStop {
					t.Fatalf("want a stop, got err %v finish %+v", r.Err, r.Finish)
				}
				return
			}
			if r.Err == nil || !r.Err.Retryable() {
				t.Fatalf("want a retryable error, got err %v finish %+v", r.Err, r.Finish)
			}
		})
	}
}
