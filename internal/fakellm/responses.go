package fakellm

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/codeloop/codeloop/internal/llm"
)

// responsesEncoder writes OpenAI Responses API events: named SSE events
// (response.created, response.output_item.added, response.output_text.delta,
// response.function_call_arguments.delta, response.output_item.done,
// response.completed and the rest), each with a sequence_number counting
// from 0, the shapes of the API reference's streaming examples.
//
// Text becomes a message item with one output_text part, reasoning a
// reasoning item with one summary part (its signature, if any, as
// encrypted_content), and each tool call a function_call item whose item
// id is "fc_" and the call id. The usage is reported once, in
// response.completed, with input_tokens including the cached ones.
type responsesEncoder struct {
	w      io.Writer
	seq    int
	output []map[string]any    // finished items, in output order
	items  map[string]*outItem // open items by script id (kind-prefixed)
	next   int                 // next output_index
	usage  *llm.Usage
	reason llm.FinishReason
}

// outItem is an output item being streamed.
type outItem struct {
	index int
	id    string
	text  strings.Builder
	// call fields
	callID, name string
}

const responseID = "resp_fake"

func (r *responsesEncoder) emit(typ string, fields map[string]any) {
	fields["type"] = typ
	fields["sequence_number"] = r.seq
	r.seq++
	sse(r.w, typ, fields)
}

// response is the response object as the lifecycle events carry it.
func (r *responsesEncoder) response(status string) map[string]any {
	resp := map[string]any{
		"id": responseID, "object": "response", "created_at": 1, "status": status, "model": "fake",
		"error": nil, "incomplete_details": nil, "output": []any{}, "usage": nil,
		"parallel_tool_calls": true, "store": false, "tool_choice": "auto", "tools": []any{},
	}
	return resp
}

func (r *responsesEncoder) start() {
	r.items = map[string]*outItem{}
	r.emit("response.created", map[string]any{"response": r.response("in_progress")})
	r.emit("response.in_progress", map[string]any{"response": r.response("in_progress")})
}

func (r *responsesEncoder) open(key, id string) *outItem {
	it := &outItem{index: r.next, id: id}
	r.next++
	r.items[key] = it
	return it
}

func (r *responsesEncoder) done(key string, item map[string]any) {
	it := r.items[key]
	delete(r.items, key)
	r.output = append(r.output, item)
	r.emit("response.output_item.done", map[string]any{"output_index": it.index, "item": item})
}

// started is the open item under key, started with start when a delta
// comes before its start event.
func (r *responsesEncoder) started(key string, start llm.Event) *outItem {
	if r.items[key] == nil {
		r.event(start)
	}
	return r.items[key]
}

func (r *responsesEncoder) event(ev llm.Event) {
	switch ev.Type {
	case llm.EventTextStart:
		it := r.open("t:"+ev.ID, fmt.Sprintf("msg_%d", r.next))
		r.emit("response.output_item.added", map[string]any{"output_index": it.index, "item": map[string]any{
			"id": it.id, "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}})
		r.emit("response.content_part.added", map[string]any{"item_id": it.id, "output_index": it.index, "content_index": 0,
			"part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
	case llm.EventTextDelta:
		it := r.started("t:"+ev.ID, llm.Event{Type: llm.EventTextStart, ID: ev.ID})
		it.text.WriteString(ev.Text)
		r.emit("response.output_text.delta", map[string]any{"item_id": it.id, "output_index": it.index, "content_index": 0, "delta": ev.Text})
	case llm.EventTextEnd:
		it := r.items["t:"+ev.ID]
		if it == nil {
			return
		}
		text := it.text.String()
		part := map[string]any{"type": "output_text", "text": text, "annotations": []any{}}
		r.emit("response.output_text.done", map[string]any{"item_id": it.id, "output_index": it.index, "content_index": 0, "text": text})
		r.emit("response.content_part.done", map[string]any{"item_id": it.id, "output_index": it.index, "content_index": 0, "part": part})
		r.done("t:"+ev.ID, map[string]any{"id": it.id, "type": "message", "status": "completed", "role": "assistant", "content": []any{part}})
	case llm.EventReasoningStart:
		it := r.open("r:"+ev.ID, fmt.Sprintf("rs_%d", r.next))
		r.emit("response.output_item.added", map[string]any{"output_index": it.index, "item": map[string]any{
			"id": it.id, "type": "reasoning", "summary": []any{}}})
		r.emit("response.reasoning_summary_part.added", map[string]any{"item_id": it.id, "output_index": it.index, "summary_index": 0,
			"part": map[string]any{"type": "summary_text", "text": ""}})
	case llm.EventReasoningDelta:
		it := r.started("r:"+ev.ID, llm.Event{Type: llm.EventReasoningStart, ID: ev.ID})
		it.text.WriteString(ev.Text)
		r.emit("response.reasoning_summary_text.delta", map[string]any{"item_id": it.id, "output_index": it.index, "summary_index": 0, "delta": ev.Text})
	case llm.EventReasoningEnd:
		it := r.items["r:"+ev.ID]
		if it == nil {
			return
		}
		text := it.text.String()
		part := map[string]any{"type": "summary_text", "text": text}
		r.emit("response.reasoning_summary_text.done", map[string]any{"item_id": it.id, "output_index": it.index, "summary_index": 0, "text": text})
		r.emit("response.reasoning_summary_part.done", map[string]any{"item_id": it.id, "output_index": it.index, "summary_index": 0, "part": part})
		item := map[string]any{"id": it.id, "type": "reasoning", "summary": []any{part}}
		if ev.Signature != "" {
			item["encrypted_content"] = ev.Signature
		}
		r.done("r:"+ev.ID, item)
	case llm.EventToolInputStart:
		r.openCall(ev.ID, ev.ToolName)
	case llm.EventToolInputDelta:
		it := r.items["c:"+ev.ID]
		if it == nil {
			it = r.openCall(ev.ID, ev.ToolName)
		}
		it.text.WriteString(ev.Text)
		r.emit("response.function_call_arguments.delta", map[string]any{"item_id": it.id, "output_index": it.index, "delta": ev.Text})
	case llm.EventToolCall:
		it := r.items["c:"+ev.ID]
		if it == nil {
			it = r.openCall(ev.ID, ev.ToolName)
			it.text.WriteString(ev.Input)
			r.emit("response.function_call_arguments.delta", map[string]any{"item_id": it.id, "output_index": it.index, "delta": ev.Input})
		}
		args := it.text.String()
		r.emit("response.function_call_arguments.done", map[string]any{"item_id": it.id, "name": it.name, "output_index": it.index, "arguments": args})
		r.done("c:"+ev.ID, map[string]any{"type": "function_call", "id": it.id, "call_id": it.callID, "name": it.name,
			"arguments": args, "status": "completed"})
	case llm.EventFinish:
		u := ev.Usage
		r.usage, r.reason = &u, ev.Reason
	}
}

func (r *responsesEncoder) openCall(id, name string) *outItem {
	it := r.open("c:"+id, "fc_"+id)
	it.callID, it.name = id, name
	r.emit("response.output_item.added", map[string]any{"output_index": it.index, "item": map[string]any{
		"type": "function_call", "id": it.id, "call_id": id, "name": name, "arguments": "", "status": "in_progress"}})
	return it
}

func (r *responsesEncoder) end() {
	status, event := "completed", "response.completed"
	resp := r.response(status)
	switch r.reason {
	case llm.FinishLength, llm.FinishContentFilter:
		reason := "max_output_tokens"
		if r.reason == llm.FinishContentFilter {
			reason = "content_filter"
		}
		status, event = "incomplete", "response.incomplete"
		resp["status"], resp["incomplete_details"] = status, map[string]any{"reason": reason}
	}
	output := make([]any, len(r.output))
	for i, it := range r.output {
		output[i] = it
	}
	resp["output"] = output
	if u := r.usage; u != nil {
		input := u.Input + u.CacheRead + u.CacheWrite
		output := u.Output + u.Reasoning
		resp["usage"] = map[string]any{
			"input_tokens":          input,
			"input_tokens_details":  map[string]any{"cached_tokens": u.CacheRead},
			"output_tokens":         output,
			"output_tokens_details": map[string]any{"reasoning_tokens": u.Reasoning},
			"total_tokens":          input + output,
		}
	}
	r.emit(event, map[string]any{"response": resp})
}

// responsesPrompt returns the parts of a Responses request body that make
// its prompt, in the order the cache sees them: tools, instructions, then
// the input items.
func responsesPrompt(body []byte) ([]byte, bool) {
	var req struct {
		Tools        json.RawMessage `json:"tools"`
		Instructions json.RawMessage `json:"instructions"`
		Input        json.RawMessage `json:"input"`
	}
	if json.Unmarshal(body, &req) != nil {
		return nil, false
	}
	out := append(append([]byte{}, req.Tools...), req.Instructions...)
	return append(out, req.Input...), true
}
