package anthropic

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/codeloop/codeloop/internal/llm/jsonwrite"

	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/codeloop/codeloop/internal/llm"
)

// The request body of a long conversation is mostly its messages: at
// thousands of messages, converting each into the SDK's parameter types
// and marshalling those through its reflective encoder costs more time and
// memory than everything else before the request. A conversation of text,
// reasoning, tool calls and tool results is written here straight from the
// history into the body, byte for byte what the SDK would write (test and
// fuzz test in body_test.go); the rest of the request (model, system,
// tools, options) still goes through the SDK, and a conversation with
// files or images takes the SDK's path whole.

// messagesBody returns the request body for req with its messages written
// directly, and the per-request options, or ok false when req holds
// something only the SDK's path handles.
func messagesBody(req *llm.Request) (body []byte, opts []option.RequestOption, ok bool) {
	if !llm.Plain(req.Messages) {
		return nil, nil, false
	}
	rest := *req
	rest.Messages = nil
	params, opts := buildParams(&rest)
	head, err := params.MarshalJSON()
	if err != nil {
		return nil, nil, false
	}
	// The SDK writes max_tokens first and messages right after it.
	const prefix = `{"max_tokens":`
	if !bytes.HasPrefix(head, []byte(prefix)) || bytes.Contains(head, []byte(`"messages"`)) {
		return nil, nil, false
	}
	at := len(prefix)
	for at < len(head) && (head[at] == '-' || head[at] >= '0' && head[at] <= '9') {
		at++
	}
	if at == len(prefix) || at == len(head) || (head[at] != ',' && head[at] != '}') {
		return nil, nil, false
	}
	blocks, msgs := plan(req.Messages)
	if len(msgs) == 0 {
		// The SDK leaves an empty list of messages out.
		return head, opts, true
	}
	// The body's size, short of escapes: each turn and block adds its
	// keys, and a tool call its id and name.
	size := len(head) + 16 + 36*len(msgs)
	for i := range blocks {
		part := blocks[i].part
		size += len(part.Text) + len(part.Output) + len(part.Input) + len(part.Signature) + len(part.Redacted) + 64
		size += len(part.ToolCallID) + len(part.ToolName)
	}
	size += size / 32 // some room for escapes
	b := make([]byte, 0, size)
	b = append(b, head[:at]...)
	b = append(b, `,"messages":[`...)
	for i, m := range msgs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"content":[`...)
		for j := m.start; j < m.end; j++ {
			if j > m.start {
				b = append(b, ',')
			}
			b = appendBlock(b, &blocks[j])
		}
		if m.assistant {
			b = append(b, `],"role":"assistant"}`...)
		} else {
			b = append(b, `],"role":"user"}`...)
		}
	}
	b = append(b, ']')
	return append(b, head[at:]...), opts, true
}

// bodyBlock is a part that becomes a content block, and whether it
// carries a cache-control breakpoint.
type bodyBlock struct {
	part *llm.Part
	mark bool
}

// bodyMessage is a turn of the request: the blocks from start to end, of
// one role (consecutive messages of a role merged, as convertMessages
// merges them).
type bodyMessage struct {
	assistant  bool
	start, end int
}

// plan lays out the turns and blocks that convertMessages and markCache
// would make of msgs, pointing at the parts instead of copying them.
func plan(msgs []llm.Message) ([]bodyBlock, []bodyMessage) {
	n := 0
	for _, m := range msgs {
		n += len(m.Parts)
	}
	blocks := make([]bodyBlock, 0, n)
	var turns []bodyMessage
	for i := range msgs {
		m := &msgs[i]
		assistant := m.Role == llm.RoleAssistant
		start := len(blocks)
		for j := range m.Parts {
			if keepBlock(&m.Parts[j], assistant) {
				blocks = append(blocks, bodyBlock{part: &m.Parts[j]})
			}
		}
		if len(blocks) == start {
			continue
		}
		if k := len(turns); k > 0 && turns[k-1].assistant == assistant {
			turns[k-1].end = len(blocks)
			continue
		}
		turns = append(turns, bodyMessage{assistant: assistant, start: start, end: len(blocks)})
	}
	// As markCache: the last block that can carry a breakpoint (thinking
	// blocks cannot) in each of the last two turns that have one.
	marked := 0
	for i := len(turns) - 1; i >= 0 && marked < 2; i-- {
		for j := turns[i].end - 1; j >= turns[i].start; j-- {
			if blocks[j].part.Type != llm.PartReasoning {
				blocks[j].mark = true
				marked++
				break
			}
		}
	}
	return blocks, turns
}

// keepBlock reports whether convertPart makes a block of p (after
// llm.DropEmpty, whose drops convertPart's own include).
func keepBlock(p *llm.Part, assistant bool) bool {
	switch p.Type {
	case llm.PartText:
		return strings.TrimSpace(p.Text) != ""
	case llm.PartReasoning:
		return assistant && (p.Redacted != "" || p.Signature != "")
	case llm.PartToolCall, llm.PartToolResult:
		return true
	}
	return false
}

const cacheControl = `,"cache_control":{"type":"ephemeral"}`

// appendBlock writes a block as the SDK marshals convertPart's result.
func appendBlock(b []byte, blk *bodyBlock) []byte {
	p := blk.part
	switch p.Type {
	case llm.PartText:
		b = append(b, `{"text":`...)
		b = appendJSONString(b, llm.ValidText(p.Text))
		if blk.mark {
			b = append(b, cacheControl...)
		}
		return append(b, `,"type":"text"}`...)
	case llm.PartReasoning:
		if p.Redacted != "" {
			b = append(b, `{"data":`...)
			b = appendJSONString(b, p.Redacted)
			return append(b, `,"type":"redacted_thinking"}`...)
		}
		b = append(b, `{"signature":`...)
		b = appendJSONString(b, p.Signature)
		b = append(b, `,"thinking":`...)
		b = appendJSONString(b, p.Text)
		return append(b, `,"type":"thinking"}`...)
	case llm.PartToolCall:
		b = append(b, `{"id":`...)
		b = appendJSONString(b, llm.SanitizeToolID(p.ToolCallID))
		b = append(b, `,"input":`...)
		b = appendCompactJSON(b, llm.ToolInput(p.Input))
		b = append(b, `,"name":`...)
		b = appendJSONString(b, p.ToolName)
		if blk.mark {
			b = append(b, cacheControl...)
		}
		return append(b, `,"type":"tool_use"}`...)
	default: // llm.PartToolResult
		b = append(b, `{"tool_use_id":`...)
		b = appendJSONString(b, llm.SanitizeToolID(p.ToolCallID))
		if p.IsError {
			b = append(b, `,"is_error":true`...)
		}
		if blk.mark {
			b = append(b, cacheControl...)
		}
		b = append(b, `,"content":[{"text":`...)
		b = appendJSONString(b, llm.ToolResultText(*p))
		return append(b, `,"type":"text"}],"type":"tool_result"}`...)
	}
}

// appendCompactJSON appends the valid JSON value raw as the SDK's encoder
// writes a json.RawMessage: compacted, with <, >, &, U+2028 and U+2029
// escaped.
func appendCompactJSON(b []byte, raw json.RawMessage) []byte {
	buf := bytes.NewBuffer(b)
	if !bytes.ContainsAny(raw, "<>&\u2028\u2029") {
		if json.Compact(buf, raw) != nil {
			return append(b, "{}"...) // not reached: raw is valid
		}
		return buf.Bytes()
	}
	var tmp bytes.Buffer
	if json.Compact(&tmp, raw) != nil {
		return append(b, "{}"...)
	}
	json.HTMLEscape(buf, tmp.Bytes())
	return buf.Bytes()
}

// appendJSONString appends s as a JSON string the way the SDK's encoder
// writes it.
func appendJSONString(b []byte, s string) []byte { return jsonwrite.AppendString(b, s, true) }
