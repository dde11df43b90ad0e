package anthropic

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"

	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/llm/llmtest"
	"github.com/codeloop/codeloop/internal/sse"
)

// TestBedrockStream streams the wire fixtures as Bedrock sends them (AWS
// event-stream frames, each carrying one event's JSON in base64) and checks
// that the adapter, which reads the body the SDK hands back, yields the
// same events as from the first-party API.
func TestBedrockStream(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
	t.Setenv("AWS_BEARER_TOKEN_BEDROCK", "")
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
	tests := []struct {
		file   string
		reason llm.FinishReason
	}{
		{"anthropic-text.sse", llm.FinishStop},
		{"anthropic-tool-use.sse", llm.FinishToolCalls},
		{"anthropic-thinking.sse", llm.FinishStop},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			body := eventStreamBody(t, llmtest.Wire(t, tt.file))
			srv := llmtest.NewServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
				w.WriteHeader(http.StatusOK)
				_, _ = w.Write(body)
			})
			opts, err := Bedrock(context.Background(), "us-west-2", "")
			if err != nil {
				t.Fatal(err)
			}
			p := New(Config{ID: "amazon-bedrock", HTTPClient: llmtest.HTTPClient(t), Options: append(opts, option.WithBaseURL(srv.URL))})
			r := llmtest.Collect(p.Stream(context.Background(), simple()))
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			llmtest.CheckExpected(t, r, llmtest.LoadExpected(t, tt.file), tt.reason)
		})
	}
}

// eventStreamBody re-encodes an SSE fixture as Bedrock's event-stream
// frames.
func eventStreamBody(t *testing.T, sseBody []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	enc := eventstream.NewEncoder()
	events := sse.NewReader(bytes.NewReader(sseBody))
	for events.Next() {
		data := bytes.TrimSpace(events.Data())
		if len(data) == 0 || string(events.Name()) == "ping" {
			continue
		}
		payload, err := json.Marshal(map[string]string{"bytes": base64.StdEncoding.EncodeToString(data)})
		if err != nil {
			t.Fatal(err)
		}
		var msg eventstream.Message
		msg.Headers.Set(":message-type", eventstream.StringValue("event"))
		msg.Headers.Set(":event-type", eventstream.StringValue("chunk"))
		msg.Headers.Set(":content-type", eventstream.StringValue("application/json"))
		msg.Payload = payload
		if err := enc.Encode(&out, msg); err != nil {
			t.Fatal(err)
		}
	}
	if events.Err() != nil {
		t.Fatal(events.Err())
	}
	return out.Bytes()
}
