package anthropic

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/llm/llmtest"
)

func TestVertex(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.SSE(llmtest.Wire(t, "anthropic-text.sse")))
	p := New(Config{ID: "google-vertex-anthropic", HTTPClient: llmtest.HTTPClient(t), Options: Vertex(VertexConfig{
		Region: "us-east5", Project: "proj", BaseURL: srv.URL + "/",
		Token: func(context.Context) (string, error) { return "ya29.token", nil },
	})})
	req := simple()
	req.Model = "claude-sonnet-4-5@20250929"
	r := llmtest.Collect(p.Stream(context.Background(), req))
	if r.Err != nil || r.Text != "Hello!" {
		t.Fatalf("stream: %+v", r)
	}
	got := srv.Requests()[0]
	if want := "/v1/projects/proj/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict"; got.Path != want {
		t.Errorf("path = %q, want %q", got.Path, want)
	}
	if got.Header.Get("Authorization") != "Bearer ya29.token" || got.Header.Get("X-Api-Key") != "" {
		t.Errorf("auth headers = %v", got.Header)
	}
	var body map[string]any
	json.Unmarshal(got.Body, &body)
	if body["model"] != nil || body["anthropic_version"] != vertexVersion || body["stream"] != true {
		t.Errorf("body = %s", got.Body)
	}
}

func TestBedrock(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
	t.Setenv("AWS_BEARER_TOKEN_BEDROCK", "")
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
	srv := llmtest.NewServer(t, llmtest.Status(400, nil, `{"message":"Input is too long for requested model."}`))
	opts, err := Bedrock(context.Background(), "us-west-2", "")
	if err != nil {
		t.Fatal(err)
	}
	p := New(Config{ID: "amazon-bedrock", HTTPClient: llmtest.HTTPClient(t), Options: append(opts, option.WithBaseURL(srv.URL))})
	req := simple()
	req.Model = "anthropic.claude-sonnet-4-5-20250929-v1:0"
	r := llmtest.Collect(p.Stream(context.Background(), req))
	if r.Err == nil || r.Err.Kind != llm.ErrContextOverflow {
		t.Fatalf("error = %v, want Bedrock's overflow", r.Err)
	}
	got := srv.Requests()[0]
	if !strings.HasPrefix(got.Path, "/model/anthropic.claude-sonnet-4-5-20250929-v1:0/invoke-with-response-stream") {
		t.Errorf("path = %q", got.Path)
	}
	if !strings.HasPrefix(got.Header.Get("Authorization"), "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/") {
		t.Errorf("request not signed: %v", got.Header.Get("Authorization"))
	}
}
