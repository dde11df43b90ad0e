package openai

import (
	"bytes"

	"github.com/codeloop/codeloop/internal/llm/jsonwrite"

	"strings"

	"github.com/openai/openai-go/v3/option"

	"github.com/codeloop/codeloop/internal/llm"
)

// The request body of a long conversation is mostly its messages: at
// thousands of messages, converting each into the SDK's parameter types
// and marshalling those through its reflective encoder costs more than
// everything else before the request. A conversation of plain text, tool
// calls and tool results is written here straight from the history into
// the body, byte for byte what the SDK would write; the rest of the
// request (model, tools, options) still goes through the SDK, and anything
// else (files, images, Mistral's rules, a reasoning field to send back)
// takes the SDK's path whole.

// chatBody returns the request body for req with its messages written
// directly, and the per-request options, or ok false when req holds
// something only the SDK's path handles.
func (p *Chat) chatBody(req *llm.Request) (body []byte, opts []option.RequestOption, ok bool) {
	if p.cfg.Mistral || p.cfg.ReasoningField != "" || !llm.Plain(req.Messages) {
		return nil, nil, false
	}
	rest := *req
	rest.System, rest.Messages = nil, nil
	params, opts := p.buildChat(&rest)
	head, err := params.MarshalJSON()
	if err != nil || len(head) < 2 || head[0] != '{' || bytes.Contains(head, []byte(`"messages"`)) {
		return nil, nil, false
	}
	size := len(head) + 64
	for _, s := range req.System {
		size += len(s) + 8
	}
	for _, m := range req.Messages {
		for _, part := range m.Parts {
			size += len(part.Text) + len(part.Output) + len(part.Input) + 96
		}
	}
	b := make([]byte, 0, size)
	b = append(b, `{"messages":[`...)
	n := 0
	var sys []string
	for _, s := range req.System {
		if strings.TrimSpace(s) != "" {
			sys = append(sys, llm.ValidText(s))
		}
	}
	if len(sys) > 0 {
		b = append(b, `{"content":`...)
		b = appendJSONString(b, strings.Join(sys, "\n\n"))
		b = append(b, `,"role":"system"}`...)
		n++
	}
	for _, m := range req.Messages {
		b, n = appendChatMessage(b, n, m)
	}
	b = append(b, ']')
	if len(head) > 2 {
		b = append(b, ',')
	}
	b = append(b, head[1:]...)
	return b, opts, true
}

// appendChatMessage writes m as chatMessages would convert it (after
// llm.DropEmpty), n being the number of messages written so far; it
// returns the new count.
func appendChatMessage(b []byte, n int, m llm.Message) ([]byte, int) {
	sep := func() {
		if n > 0 {
			b = append(b, ',')
		}
		n++
	}
	if m.Role == llm.RoleAssistant {
		var text strings.Builder
		calls := 0
		for _, part := range m.Parts {
			switch {
			case part.Type == llm.PartText && !emptyText(part):
				text.WriteString(llm.ValidText(part.Text))
			case part.Type == llm.PartToolCall:
				calls++
			}
		}
		if text.Len() == 0 && calls == 0 {
			return b, n
		}
		sep()
		b = append(b, '{')
		if text.Len() > 0 {
			b = append(b, `"content":`...)
			b = appendJSONString(b, text.String())
			b = append(b, ',')
		}
		if calls > 0 {
			b = append(b, `"tool_calls":[`...)
			i := 0
			for _, part := range m.Parts {
				if part.Type != llm.PartToolCall {
					continue
				}
				if i > 0 {
					b = append(b, ',')
				}
				i++
				b = append(b, `{"id":`...)
				b = appendJSONString(b, part.ToolCallID)
				b = append(b, `,"function":{"arguments":`...)
				b = appendJSONString(b, string(llm.ToolInput(part.Input)))
				b = append(b, `,"name":`...)
				b = appendJSONString(b, part.ToolName)
				b = append(b, `},"type":"function"}`...)
			}
			b = append(b, `],`...)
		}
		return append(b, `"role":"assistant"}`...), n
	}
	var text []string
	for _, part := range m.Parts {
		switch {
		case part.Type == llm.PartText && !emptyText(part):
			if strings.TrimSpace(part.Text) != "" {
				text = append(text, llm.ValidText(part.Text))
			}
		case part.Type == llm.PartToolResult:
			sep()
			b = append(b, `{"content":`...)
			b = appendJSONString(b, llm.ToolResultText(part))
			b = append(b, `,"tool_call_id":`...)
			b = appendJSONString(b, part.ToolCallID)
			b = append(b, `,"role":"tool"}`...)
		}
	}
	if len(text) > 0 {
		sep()
		b = append(b, `{"content":`...)
		b = appendJSONString(b, strings.Join(text, "\n"))
		b = append(b, `,"role":"user"}`...)
	}
	return b, n
}

// emptyText is llm.DropEmpty's test for a text part it drops.
func emptyText(p llm.Part) bool { return strings.TrimSpace(p.Text) == "" && p.Signature == "" }

// appendJSONString appends s as a JSON string the way the SDK's encoder
// writes it.
func appendJSONString(b []byte, s string) []byte { return jsonwrite.AppendString(b, s, false) }
