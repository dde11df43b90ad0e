package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/codeloop/codeloop/internal/llm"
)

// sdkBody is the body the SDK's path writes for req, before the options.
func sdkBody(t testing.TB, req *llm.Request) []byte {
	t.Helper()
	params, _ := buildParams(req)
	b, err := params.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func text(s string) llm.Part { return llm.Part{Type: llm.PartText, Text: s} }

// TestMessagesBodyMatchesSDK checks that a conversation written directly
// is byte for byte what the SDK writes, cache breakpoints included, and
// that what only the SDK handles takes its path.
func TestMessagesBodyMatchesSDK(t *testing.T) {
	temp := 0.5
	call := llm.Part{Type: llm.PartToolCall, ToolCallID: "call.1", ToolName: "read", Input: json.RawMessage(`{ "filePath" : "a<b>&c.go", "n": [1, 2] }`)}
	thinking := llm.Part{Type: llm.PartReasoning, Text: "let me <see>", Signature: "sig=="}
	tests := []struct {
		name   string
		req    llm.Request
		direct bool
	}{
		{name: "text, thinking, calls and results", direct: true, req: llm.Request{Model: "m", System: []string{"You are codeloop.", " ", "Rules: <b> & \"quotes\" \u2028 é"},
			Messages: []llm.Message{
				{Role: llm.RoleUser, Parts: []llm.Part{text("fix\tit\n"), text("  "), text("second \x01 part \xff\xfe")}},
				{Role: llm.RoleAssistant, Parts: []llm.Part{thinking, {Type: llm.PartReasoning, Text: "unsigned"}, text("Reading."), call,
					{Type: llm.PartToolCall, ToolCallID: "call 2", ToolName: "bash", Input: json.RawMessage(`not json`)}}},
				{Role: llm.RoleTool, Parts: []llm.Part{{Type: llm.PartToolResult, ToolCallID: "call.1", Output: "line 1\nline 2 ✓ <x>"},
					{Type: llm.PartToolResult, ToolCallID: "call 2", Output: " ", IsError: true}}},
				{Role: llm.RoleUser, Parts: []llm.Part{text("and then?"), {Type: llm.PartReasoning, Text: "a user's", Signature: "s"}}},
				{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartReasoning, Redacted: "opaque"}, {Type: llm.PartText, Text: " ", Signature: "sig"}, text("Done.")}},
				{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartReasoning, Text: "", Signature: "only-signed"}}},
				{Role: llm.RoleUser},
			},
			Tools:   []llm.ToolSpec{{Name: "read", Description: "Reads a file.", Schema: json.RawMessage(`{"type":"object","properties":{"filePath":{"type":"string"}}}`)}},
			Options: llm.Options{Temperature: &temp, MaxOutputTokens: 100, ToolChoice: "auto"}}},
		{name: "last turn only thinking", direct: true, req: llm.Request{Model: "m", Messages: []llm.Message{
			{Role: llm.RoleUser, Parts: []llm.Part{text("one")}},
			{Role: llm.RoleAssistant, Parts: []llm.Part{text("two"), thinking}},
			{Role: llm.RoleUser, Parts: []llm.Part{text("three")}},
			{Role: llm.RoleAssistant, Parts: []llm.Part{thinking}},
		}, Options: llm.Options{Reasoning: &llm.Reasoning{BudgetTokens: 2048}}}},
		{name: "one message", direct: true, req: llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{text("hi")}}}}},
		{name: "no messages", direct: true, req: llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{text(" ")}}}}},
		{name: "no model", direct: true, req: llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{text("hi")}}}}},
		{name: "an image", req: llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{
			{Type: llm.PartFile, MediaType: "image/png", Data: []byte("x")}}}}}},
		{name: "an image in a result", req: llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleTool, Parts: []llm.Part{
			{Type: llm.PartToolResult, ToolCallID: "c", Output: "x", Attachments: []llm.Part{{Type: llm.PartFile, MediaType: "image/png", Data: []byte("x")}}}}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, ok := messagesBody(&tt.req)
			if ok != tt.direct {
				t.Fatalf("written directly: %v, want %v", ok, tt.direct)
			}
			if !ok {
				return
			}
			if want := sdkBody(t, &tt.req); !bytes.Equal(got, want) {
				t.Errorf("direct body differs from the SDK's:\n got %s\nwant %s", got, want)
			}
		})
	}
}

// BenchmarkMessagesBody measures writing the body of a 5,000-message
// conversation, directly and through the SDK.
func BenchmarkMessagesBody(b *testing.B) {
	req := &llm.Request{Model: "m", System: []string{"You are codeloop."}}
	for i := range 2500 {
		req.Messages = append(req.Messages,
			llm.Message{Role: llm.RoleUser, Parts: []llm.Part{text(fmt.Sprintf("Question %d: what does the function on line %d do?", i, i))}},
			llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{text(fmt.Sprintf("Answer %d: it parses its input and returns an error for empty text.", i))}})
	}
	b.Run("direct", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, ok := messagesBody(req); !ok {
				b.Fatal("not direct")
			}
		}
	})
	b.Run("sdk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sdkBody(b, req)
		}
	})
}

// FuzzMessagesBody checks that any text, thinking, tool name, id, input
// and output is written directly as the SDK writes it.
func FuzzMessagesBody(f *testing.F) {
	f.Add("hello <b> & \"x\"", "call_1", `{"a": "<\u2028>"}`, true)
	f.Add(" ", "", "out\u2028\x7f\xfe", false)
	f.Fuzz(func(t *testing.T, s, id, out string, isErr bool) {
		req := &llm.Request{Model: "m", System: []string{s}, Messages: []llm.Message{
			{Role: llm.RoleUser, Parts: []llm.Part{text(s)}},
			{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartReasoning, Text: s, Signature: id}, text(s),
				{Type: llm.PartToolCall, ToolCallID: id, ToolName: s, Input: json.RawMessage(out)}}},
			{Role: llm.RoleTool, Parts: []llm.Part{{Type: llm.PartToolResult, ToolCallID: id, Output: out, IsError: isErr}}},
			{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartReasoning, Redacted: out}, {Type: llm.PartToolCall, ToolCallID: s, ToolName: id, Input: json.RawMessage(s)}}},
		}}
		got, _, ok := messagesBody(req)
		if !ok {
			t.Fatal("not written directly")
		}
		if want := sdkBody(t, req); !bytes.Equal(got, want) {
			t.Errorf("direct body differs from the SDK's:\n got %s\nwant %s", got, want)
		}
	})
}
