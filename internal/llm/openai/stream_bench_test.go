package openai

import (
	"fmt"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/llm/llmtest"
)

// BenchmarkChatStreamDeltas measures the adapter alone reading a 1,000-
// and a 20,000-delta answer from a local server: decoding the SSE chunks
// plus the events it yields. It reports the cost per delta: equal figures
// at both lengths mean a delta costs the same however long the answer.
func BenchmarkChatStreamDeltas(b *testing.B) {
	for _, n := range []int{1_000, 20_000} {
		b.Run(fmt.Sprintf("deltas=%d", n), func(b *testing.B) { benchChatStreamDeltas(b, n) })
	}
}

func benchChatStreamDeltas(b *testing.B, deltas int) {
	var sb strings.Builder
	sb.WriteString(`data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}` + "\n\n")
	for i := range deltas {
		fmt.Fprintf(&sb, `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"w%d "},"finish_reason":null}]}`+"\n\n", i%1000)
	}
	sb.WriteString(`data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n")
	srv := llmtest.NewServer(b, llmtest.SSE([]byte(sb.String())))
	p := NewChat(Config{APIKey: "k", BaseURL: srv.URL + "/v1", HTTPClient: llmtest.HTTPClient(b)})
	llmtest.BenchDeltas(b, p, simple, sb.Len(), deltas)
}
