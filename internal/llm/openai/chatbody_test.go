package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/codeloop/codeloop/internal/llm"
)

// sdkBody is the body the SDK's path writes for req, before the options.
func sdkBody(t testing.TB, p *Chat, req *llm.Request) []byte {
	t.Helper()
	params, _ := p.buildChat(req)
	b, err := params.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func text(s string) llm.Part { return llm.Part{Type: llm.PartText, Text: s} }

// TestChatBodyMatchesSDK checks that a conversation written directly is
// byte for byte what the SDK writes, and that what only the SDK handles
// takes its path.
func TestChatBodyMatchesSDK(t *testing.T) {
	temp := 0.5
	call := llm.Part{Type: llm.PartToolCall, ToolCallID: "call_1", ToolName: "read", Input: json.RawMessage(`{"filePath":"a<b>&c.go"}`)}
	tests := []struct {
		name   string
		cfg    Config
		req    llm.Request
		direct bool
	}{
		{name: "text, calls and results", direct: true, req: llm.Request{Model: "m", System: []string{"You are codeloop.", " ", "Rules: <b> & \"quotes\" \u2028 é"},
			Messages: []llm.Message{
				{Role: llm.RoleUser, Parts: []llm.Part{text("fix\tit\n"), text("  "), text("second \x01 part \xff")}},
				{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartReasoning, Text: "hm"}, text("Reading."), call,
					{Type: llm.PartToolCall, ToolCallID: "call_2", ToolName: "bash", Input: json.RawMessage(`not json`)}}},
				{Role: llm.RoleUser, Parts: []llm.Part{{Type: llm.PartToolResult, ToolCallID: "call_1", Output: "line 1\nline 2 ✓"},
					{Type: llm.PartToolResult, ToolCallID: "call_2", Output: " ", IsError: true}, text("and then?")}},
				{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartReasoning, Text: "only thinking"}}},
				{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartText, Text: " ", Signature: "sig"}, text("Done.")}},
				{Role: llm.RoleUser},
			},
			Tools:   []llm.ToolSpec{{Name: "read", Description: "Reads a file.", Schema: json.RawMessage(`{"type":"object","properties":{"filePath":{"type":"string"}}}`)}},
			Options: llm.Options{Temperature: &temp, MaxOutputTokens: 100, ToolChoice: "auto"}}},
		{name: "no system, no tools", direct: true, req: llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{text("hi")}}}}},
		{name: "an image", req: llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{
			{Type: llm.PartFile, MediaType: "image/png", Data: []byte("x")}}}}}},
		{name: "mistral", cfg: Config{Mistral: true}, req: llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{text("hi")}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewChat(tt.cfg)
			got, _, ok := p.chatBody(&tt.req)
			if ok != tt.direct {
				t.Fatalf("written directly: %v, want %v", ok, tt.direct)
			}
			if !ok {
				return
			}
			if want := sdkBody(t, p, &tt.req); !bytes.Equal(got, want) {
				t.Errorf("direct body differs from the SDK's:\n got %s\nwant %s", got, want)
			}
		})
	}
}

// BenchmarkChatBody measures writing the body of a 5,000-message
// conversation, directly and through the SDK.
func BenchmarkChatBody(b *testing.B) {
	req := &llm.Request{Model: "m", System: []string{"You are codeloop."}}
	for i := range 2500 {
		req.Messages = append(req.Messages,
			llm.Message{Role: llm.RoleUser, Parts: []llm.Part{text(fmt.Sprintf("Question %d: what does the function on line %d do?", i, i))}},
			llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{text(fmt.Sprintf("Answer %d: it parses its input and returns an error for empty text.", i))}})
	}
	p := NewChat(Config{})
	b.Run("direct", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, ok := p.chatBody(req); !ok {
				b.Fatal("not direct")
			}
		}
	})
	b.Run("sdk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sdkBody(b, p, req)
		}
	})
}

// FuzzChatBody checks that any text, tool name, id and output is written
// directly as the SDK writes it.
func FuzzChatBody(f *testing.F) {
	f.Add("hello <b> & \"x\"", "call_1", "out\u2028\x7f\xfe")
	f.Fuzz(func(t *testing.T, s, id, out string) {
		req := &llm.Request{Model: "m", System: []string{s}, Messages: []llm.Message{
			{Role: llm.RoleUser, Parts: []llm.Part{text(s)}},
			{Role: llm.RoleAssistant, Parts: []llm.Part{text(s), {Type: llm.PartToolCall, ToolCallID: id, ToolName: s, Input: json.RawMessage(out)}}},
			{Role: llm.RoleUser, Parts: []llm.Part{{Type: llm.PartToolResult, ToolCallID: id, Output: out}}},
		}}
		p := NewChat(Config{})
		got, _, ok := p.chatBody(req)
		if !ok {
			t.Fatal("not written directly")
		}
		if want := sdkBody(t, p, req); !bytes.Equal(got, want) {
			t.Errorf("direct body differs from the SDK's:\n got %s\nwant %s", got, want)
		}
	})
}
