package fakellm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/llm/openai"
)

// TestResponsesRoundTrip plays tool calls with streamed arguments and a
// long text to codeloop's Responses adapter, with the prompt cache on: the
// second request, which repeats the first one's long prefix, reads it.
func TestResponsesRoundTrip(t *testing.T) {
	long := strings.Repeat("w ", 3000)
	steps := []Step{
		append(append(Reasoning("r", "Look first.", "enc-1"), append(
			Call("call_1", "read", `{"filePath":"a.txt"}`),
			Call("call_2", "bash", `{"command":"ls"}`)...)...),
			Finish(llm.FinishToolCalls, llm.Usage{Output: 30})...),
		append(Text("t", long), Finish(llm.FinishStop, llm.Usage{Output: 3000})...),
	}
	srv := NewServer(steps...).AccountCache(nil)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	p := openai.NewResponses(openai.Config{ID: "fake", BaseURL: hs.URL + "/v1", APIKey: "k"})
	system := []string{strings.Repeat("You are codeloop. ", 600)} // about 2,700 tokens
	user := llm.Message{Role: llm.RoleUser, Parts: []llm.Part{{Type: llm.PartText, Text: "look around"}}}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	type result struct {
		text, reasoning, encrypted string
		calls                      []llm.Event
		deltas                     map[string]string
		reason                     llm.FinishReason
		usage                      llm.Usage
	}
	stream := func(req *llm.Request) result {
		r := result{deltas: map[string]string{}}
		for ev := range p.Stream(ctx, req) {
			switch ev.Type {
			case llm.EventTextDelta:
				r.text += ev.Text
			case llm.EventReasoningDelta:
				r.reasoning += ev.Text
			case llm.EventReasoningEnd:
				r.encrypted = ev.Encrypted
			case llm.EventToolInputDelta:
				r.deltas[ev.ID] += ev.Text
			case llm.EventToolCall:
				r.calls = append(r.calls, ev)
			case llm.EventFinish:
				r.reason, r.usage = ev.Reason, ev.Usage
			case llm.EventError:
				t.Fatalf("stream error: %v", ev.Err)
			}
		}
		return r
	}

	first := stream(&llm.Request{Model: "fake", System: system, Messages: []llm.Message{user}})
	if first.reasoning != "Look first." || first.encrypted != "enc-1" {
		t.Errorf("reasoning %q, encrypted %q", first.reasoning, first.encrypted)
	}
	if len(first.calls) != 2 || first.calls[0].ToolName != "read" || first.calls[0].Input != `{"filePath":"a.txt"}` ||
		first.calls[1].ID != "call_2" || first.calls[1].Input != `{"command":"ls"}` {
		t.Errorf("calls %+v", first.calls)
	}
	if first.deltas["call_1"] != `{"filePath":"a.txt"}` {
		t.Errorf("streamed arguments %q", first.deltas["call_1"])
	}
	if first.reason != llm.FinishToolCalls || first.usage.CacheRead != 0 || first.usage.Input < 2000 || first.usage.Output != 30 {
		t.Errorf("first: reason %s, usage %+v", first.reason, first.usage)
	}

	assistant := llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{
		{Type: llm.PartToolCall, ToolCallID: "call_1", ToolName: "read", Input: json.RawMessage(`{"filePath":"a.txt"}`)},
		{Type: llm.PartToolCall, ToolCallID: "call_2", ToolName: "bash", Input: json.RawMessage(`{"command":"ls"}`)},
	}}
	results := llm.Message{Role: llm.RoleTool, Parts: []llm.Part{
		{Type: llm.PartToolResult, ToolCallID: "call_1", Output: "contents"},
		{Type: llm.PartToolResult, ToolCallID: "call_2", Output: "a.txt"},
	}}
	second := stream(&llm.Request{Model: "fake", System: system, Messages: []llm.Message{user, assistant, results}})
	if second.text != long || second.reason != llm.FinishStop {
		t.Errorf("second: %d bytes of text, reason %s", len(second.text), second.reason)
	}
	u := second.usage
	if u.CacheRead < CacheMinTokens || u.CacheRead%128 != 0 || u.Input <= 0 || u.Output != 3000 {
		t.Errorf("second usage %+v: want the shared prefix read from the cache", u)
	}
	prompts := srv.Prompts()
	if len(prompts) != 2 || prompts[1] != (llm.Usage{Input: u.Input, CacheRead: u.CacheRead}) {
		t.Errorf("server counted %+v, client saw %+v", prompts, u)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || !strings.HasSuffix(reqs[0].Path, "/responses") ||
		!bytes.Contains(reqs[1].Body, []byte(`"function_call_output"`)) {
		t.Errorf("requests %+v", reqs)
	}
}

// TestResponsesEventShapes reads the raw stream: named events, each with
// the type its name says and a sequence number counting from 0, from
// response.created to response.completed with the usage.
func TestResponsesEventShapes(t *testing.T) {
	tests := []struct {
		name   string
		step   Step
		events []string
	}{
		{
			name: "text",
			step: append(Text("t", "Hi there"), Finish(llm.FinishStop, llm.Usage{Input: 30, CacheRead: 7, Output: 2})...),
			events: []string{"response.created", "response.in_progress", "response.output_item.added", "response.content_part.added",
				"response.output_text.delta", "response.output_text.delta", "response.output_text.done", "response.content_part.done",
				"response.output_item.done", "response.completed"},
		},
		{
			name: "call",
			step: append(Call("call_9", "shell", `{"cmd":"ls"}`), Finish(llm.FinishToolCalls, llm.Usage{Input: 1, Output: 1})...),
			events: []string{"response.created", "response.in_progress", "response.output_item.added",
				"response.function_call_arguments.delta", "response.function_call_arguments.done", "response.output_item.done", "response.completed"},
		},
		{
			name: "cut at the output limit",
			step: append(Text("t", "Hi"), Finish(llm.FinishLength, llm.Usage{Input: 1, Output: 1})...),
			events: []string{"response.created", "response.in_progress", "response.output_item.added", "response.content_part.added",
				"response.output_text.delta", "response.output_text.done", "response.content_part.done",
				"response.output_item.done", "response.incomplete"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs := httptest.NewServer(NewServer(tt.step))
			defer hs.Close()
			resp, err := http.Post(hs.URL+"/v1/responses", "application/json", strings.NewReader(`{"model":"m","input":"hi"}`))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var names []string
			var last map[string]any
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(nil, 1<<20)
			var name string
			for sc.Scan() {
				line := sc.Text()
				if v, ok := strings.CutPrefix(line, "event: "); ok {
					name = v
					continue
				}
				data, ok := strings.CutPrefix(line, "data: ")
				if !ok {
					continue
				}
				var ev map[string]any
				if err := json.Unmarshal([]byte(data), &ev); err != nil {
					t.Fatalf("event %q: %v", data, err)
				}
				if ev["type"] != name {
					t.Errorf("event %s carries type %v", name, ev["type"])
				}
				if seq, _ := ev["sequence_number"].(float64); int(seq) != len(names) {
					t.Errorf("event %d has sequence number %v", len(names), ev["sequence_number"])
				}
				names = append(names, name)
				last = ev
			}
			if strings.Join(names, " ") != strings.Join(tt.events, " ") {
				t.Errorf("events\n%v\nwant\n%v", names, tt.events)
			}
			if tt.name == "text" {
				usage := last["response"].(map[string]any)["usage"].(map[string]any)
				cached := usage["input_tokens_details"].(map[string]any)["cached_tokens"]
				if usage["input_tokens"] != 37.0 || cached != 7.0 || usage["output_tokens"] != 2.0 || usage["total_tokens"] != 39.0 {
					t.Errorf("usage %v", usage)
				}
				out := last["response"].(map[string]any)["output"].([]any)
				if len(out) != 1 || out[0].(map[string]any)["content"].([]any)[0].(map[string]any)["text"] != "Hi there" {
					t.Errorf("output %v", out)
				}
			}
		})
	}
}
