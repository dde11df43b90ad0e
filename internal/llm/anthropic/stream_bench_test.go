package anthropic

import (
	"fmt"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/llm/llmtest"
)

// BenchmarkStreamDeltas measures the adapter alone reading a 1,000- and a
// 20,000-delta answer from a local server: decoding the stream's events
// plus the events it yields. It reports the cost per delta: equal figures
// at both lengths mean a delta costs the same however long the answer.
func BenchmarkStreamDeltas(b *testing.B) {
	for _, n := range []int{1_000, 20_000} {
		b.Run(fmt.Sprintf("deltas=%d", n), func(b *testing.B) { benchStreamDeltas(b, n) })
	}
}

func benchStreamDeltas(b *testing.B, deltas int) {
	var sb strings.Builder
	sb.WriteString("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"c\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n")
	sb.WriteString("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
	for i := range deltas {
		fmt.Fprintf(&sb, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"w%d \"}}\n\n", i%1000)
	}
	sb.WriteString("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n")
	fmt.Fprintf(&sb, "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":%d}}\n\n", deltas)
	sb.WriteString("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	srv := llmtest.NewServer(b, llmtest.SSE([]byte(sb.String())))
	p := New(Config{APIKey: "k", BaseURL: srv.URL, HTTPClient: llmtest.HTTPClient(b)})
	llmtest.BenchDeltas(b, p, simple, sb.Len(), deltas)
}
