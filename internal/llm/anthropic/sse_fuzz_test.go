package anthropic

import (
	"net/http"
	"testing"

	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/llm/llmtest"
)

// FuzzStream sends arbitrary bytes as the SSE body of a 200 response; see
// llmtest.FuzzStream for what it checks.
//
// Run it with:
//
//	go test ./internal/llm/anthropic -run '^$' -fuzz '^FuzzStream$' -fuzztime 5m -parallel 1
func FuzzStream(f *testing.F) {
	f.Add([]byte("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}\n\n"))
	f.Add([]byte("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"busy\"}}\n\n"))
	llmtest.FuzzStream(f, "anthropic-*.sse", func(url string, client *http.Client, header map[string]string) llm.Provider {
		return New(Config{APIKey: "k", BaseURL: url, HTTPClient: client, Headers: header})
	}, simple)
}
