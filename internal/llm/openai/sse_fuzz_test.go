package openai

import (
	"net/http"
	"testing"

	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/llm/llmtest"
)

// FuzzChatStream sends arbitrary bytes as the SSE body of a 200 Chat
// Completions response; see llmtest.FuzzStream for what it checks.
//
// Run it with:
//
//	go test ./internal/llm/openai -run '^$' -fuzz '^FuzzChatStream$' -fuzztime 5m -parallel 1
func FuzzChatStream(f *testing.F) {
	f.Add([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"function\":{\"arguments\":\"{\"}}]}}]}\n\ndata: [DONE]\n\n"))
	f.Add([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"hm\",\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\n"))
	f.Add([]byte("data: {\"error\":{\"message\":\"overloaded\",\"code\":529}}\n\n"))
	llmtest.FuzzStream(f, "openai-chat-*.sse", fuzzProvider(chatFlavour), simple)
}

// FuzzResponsesStream sends arbitrary bytes as the SSE body of a 200
// Responses API response; see llmtest.FuzzStream for what it checks.
//
// Run it with:
//
//	go test ./internal/llm/openai -run '^$' -fuzz '^FuzzResponsesStream$' -fuzztime 5m -parallel 1
func FuzzResponsesStream(f *testing.F) {
	f.Add([]byte("event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"item_id\":\"m\",\"delta\":\"x\"}\n\n"))
	f.Add([]byte("event: response.failed\ndata: {\"type\":\"response.failed\",\"response\":{\"error\":{\"code\":\"server_error\",\"message\":\"boom\"}}}\n\n"))
	llmtest.FuzzStream(f, "openai-responses-*.sse", fuzzProvider(responsesFlavour), simple)
}

// fuzzProvider builds the flavour's adapter for the fuzz server.
func fuzzProvider(fl flavour) llmtest.NewFuzzProvider {
	return func(url string, client *http.Client, header map[string]string) llm.Provider {
		return fl.new(Config{APIKey: "k", BaseURL: url + "/v1", HTTPClient: client, Headers: header})
	}
}
