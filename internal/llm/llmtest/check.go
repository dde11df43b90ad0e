package llmtest

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/codeloop/codeloop/internal/llm"
)

// Update is the -update flag of every package that uses golden files.
var Update = flag.Bool("update", false, "rewrite golden files")

// WantUsage is the normalised usage an expected.json entry implies: input
// without cached tokens, output without reasoning tokens (Gemini counts
// thoughts apart from candidates already). ok is false when the entry has
// no usage.
func WantUsage(e Expected) (u llm.Usage, ok bool) {
	if e.Usage == nil {
		return llm.Usage{}, false
	}
	pos := func(k string) int64 { return max(e.UsageInt(k), 0) }
	u.CacheRead = pos("cached_input_tokens")
	u.Input = pos("input_tokens") - u.CacheRead
	if e.API == "gemini-streamGenerateContent" {
		u.Output = pos("output_tokens")
		u.Reasoning = pos("thoughts_tokens")
	} else {
		u.Reasoning = pos("reasoning_tokens")
		u.Output = pos("output_tokens") - u.Reasoning
	}
	return u, true
}

// CheckExpected compares a collected stream with its expected.json entry.
// reason is the finish reason the entry's raw stop reason maps to.
func CheckExpected(t testing.TB, r Result, e Expected, reason llm.FinishReason) {
	t.Helper()
	if r.Text != e.Text {
		t.Errorf("text = %q, want %q", r.Text, e.Text)
	}
	if e.Reasoning != nil {
		if r.Reasoning != e.Reasoning.Text {
			t.Errorf("reasoning = %q, want %q", r.Reasoning, e.Reasoning.Text)
		}
		if r.Signature != e.Reasoning.Signature {
			t.Errorf("signature = %q, want %q", r.Signature, e.Reasoning.Signature)
		}
	} else if r.Reasoning != "" {
		t.Errorf("unexpected reasoning %q", r.Reasoning)
	}
	if len(r.ToolCalls) != len(e.ToolCalls) {
		t.Fatalf("%d tool calls, want %d: %+v", len(r.ToolCalls), len(e.ToolCalls), r.ToolCalls)
	}
	ids := map[string]bool{}
	for i, want := range e.ToolCalls {
		got := r.ToolCalls[i]
		if got.Name != want.Name {
			t.Errorf("call %d name = %q, want %q", i, got.Name, want.Name)
		}
		if want.ID != nil && got.ID != *want.ID {
			t.Errorf("call %d id = %q, want %q", i, got.ID, *want.ID)
		}
		if ids[got.ID] {
			t.Errorf("call %d id %q is not unique", i, got.ID)
		}
		ids[got.ID] = true
		if want.ItemID != "" && got.ItemID != want.ItemID {
			t.Errorf("call %d item id = %q, want %q", i, got.ItemID, want.ItemID)
		}
		if want.RawArguments != "" && got.Input != want.RawArguments {
			t.Errorf("call %d arguments = %q, want byte-exact %q", i, got.Input, want.RawArguments)
		}
		if !SameJSON(got.Input, string(want.Arguments)) {
			t.Errorf("call %d arguments = %s, want %s", i, got.Input, want.Arguments)
		}
		if want.ThoughtSignature != nil && got.Signature != *want.ThoughtSignature {
			t.Errorf("call %d signature = %q, want %q", i, got.Signature, *want.ThoughtSignature)
		} else if want.ThoughtSignature == nil && e.API == "gemini-streamGenerateContent" && got.Signature != "" {
			t.Errorf("call %d has signature %q, want none", i, got.Signature)
		}
	}
	if e.Error != nil {
		if r.Err == nil {
			t.Fatalf("no error, want %+v", e.Error)
		}
		if r.Err.Retryable() != e.Error.Retryable {
			t.Errorf("error %v retryable = %v, want %v", r.Err, r.Err.Retryable(), e.Error.Retryable)
		}
		if !bytes.Contains([]byte(r.Err.Message), []byte(e.Error.Message)) {
			t.Errorf("error message %q does not say %q", r.Err.Message, e.Error.Message)
		}
		if r.Finish != nil {
			t.Errorf("finish event %+v after an error stream", r.Finish)
		}
		return
	}
	if r.Err != nil {
		t.Fatalf("error: %v", r.Err)
	}
	if r.Finish == nil {
		t.Fatal("no finish event")
	}
	if r.Finish.Reason != reason {
		t.Errorf("finish reason = %q, want %q", r.Finish.Reason, reason)
	}
	want, ok := WantUsage(e)
	if !ok {
		want = llm.Usage{}
	}
	if r.Finish.Usage != want {
		t.Errorf("usage = %+v, want %+v", r.Finish.Usage, want)
	}
}

// SameJSON reports whether two JSON texts encode the same value.
func SameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// Golden compares got (JSON) with the golden file testdata/name, after
// indenting it; with -update it rewrites the file instead.
func Golden(t testing.TB, name string, got []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, got, "", "  "); err != nil {
		t.Fatalf("request body is not JSON: %v\n%s", err, got)
	}
	buf.WriteByte('\n')
	path := filepath.Join("testdata", name)
	if *Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("request body differs from %s (run with -update to accept):\n%s", path, buf.Bytes())
	}
}

// PNG is a 1×1 transparent PNG.
var PNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")

// Conversation is the request every adapter's request-shape test sends:
// system text (with an empty block), an image, a signed reasoning block and
// encrypted reasoning from a previous turn, a tool call whose id needs
// sanitising, its result with an image attachment, empty text and an
// empty message.
func Conversation(model string) *llm.Request {
	temp := 0.5
	return &llm.Request{
		Model:  model,
		System: []string{"You are codeloop.", "", "Project instructions.", "Third system block."},
		Messages: []llm.Message{
			{Role: llm.RoleUser, Parts: []llm.Part{
				{Type: llm.PartText, Text: "What is in this image?"},
				{Type: llm.PartFile, MediaType: "image/png", Filename: "dot.png", Data: PNG},
				{Type: llm.PartText, Text: ""},
			}},
			{Role: llm.RoleAssistant, Parts: []llm.Part{
				{Type: llm.PartReasoning, Text: "The user wants the image read.", Signature: "sig-abc",
					Encrypted: "enc-xyz", ItemID: "rs_123"},
				{Type: llm.PartText, Text: "Let me look at it."},
				{Type: llm.PartToolCall, ToolCallID: "call:1|read.file", ToolName: "read",
					Input: json.RawMessage(`{"filePath":"/tmp/dot.png"}`)},
			}},
			{Role: llm.RoleTool, Parts: []llm.Part{
				{Type: llm.PartToolResult, ToolCallID: "call:1|read.file", ToolName: "read", Output: "Image read.",
					Attachments: []llm.Part{{Type: llm.PartFile, MediaType: "image/png", Data: PNG}}},
			}},
			{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartText, Text: "  "}}},
			{Role: llm.RoleUser, Parts: []llm.Part{{Type: llm.PartText, Text: "Describe it briefly."}}},
		},
		Tools: []llm.ToolSpec{{
			Name:        "read",
			Description: "Read a file.",
			Schema:      json.RawMessage(`{"type":"object","properties":{"filePath":{"type":"string","description":"Absolute path."}},"required":["filePath"],"additionalProperties":false}`),
		}},
		Options: llm.Options{Temperature: &temp, MaxOutputTokens: 4096, CacheKey: "ses_test"},
	}
}
