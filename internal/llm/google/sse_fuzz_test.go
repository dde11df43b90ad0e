package google

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
//	go test ./internal/llm/google -run '^$' -fuzz '^FuzzStream$' -fuzztime 5m -parallel 1
func FuzzStream(f *testing.F) {
	f.Add([]byte("data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"read\",\"args\":{}}}]},\"finishReason\":\"STOP\"}]}\n\n"))
	f.Add([]byte("data: {\"error\":{\"code\":503,\"message\":\"overloaded\",\"status\":\"UNAVAILABLE\"}}\n\n"))
	llmtest.FuzzStream(f, "gemini-*.sse", func(url string, client *http.Client, header map[string]string) llm.Provider {
		return New(Config{APIKey: "k", BaseURL: url, HTTPClient: client, Headers: header})
	}, simple)
}
