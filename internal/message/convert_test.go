package message

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/llm"
)

func user(id string, parts ...Part) Message {
	return Message{Info: Info{ID: id, Role: RoleUser, Agent: "build"}, Parts: parts}
}

func assistant(id string, parts ...Part) Message {
	return Message{Info: Info{ID: id, Role: RoleAssistant, ProviderID: "p", ModelID: "m", Finish: "stop"}, Parts: parts}
}

func text(s string) *TextPart { return &TextPart{Text: s} }

func tool(call, status string, mod func(*ToolState)) *ToolPart {
	p := &ToolPart{CallID: call, Tool: "read", State: ToolState{Status: ToolStatus(status), Input: json.RawMessage(`{"filePath":"a"}`)}}
	if mod != nil {
		mod(&p.State)
	}
	return p
}

// render writes messages compactly: role then each part.
func render(ms []llm.Message) string {
	var b strings.Builder
	for _, m := range ms {
		b.WriteString(string(m.Role) + ":")
		for _, p := range m.Parts {
			switch p.Type {
			case llm.PartText:
				fmt.Fprintf(&b, " text(%s)", p.Text)
			case llm.PartReasoning:
				fmt.Fprintf(&b, " reasoning(%s|%s)", p.Text, p.Signature)
			case llm.PartFile:
				fmt.Fprintf(&b, " file(%s,%d bytes,%s)", p.MediaType, len(p.Data), p.URL)
			case llm.PartToolCall:
				fmt.Fprintf(&b, " call(%s %s %s)", p.ToolCallID, p.ToolName, p.Input)
			case llm.PartToolResult:
				fmt.Fprintf(&b, " result(%s %q err=%v media=%d)", p.ToolCallID, p.Output, p.IsError, len(p.Attachments))
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestToModel(t *testing.T) {
	png := &FilePart{Mime: "image/png", URL: "data:image/png;base64,iVBORw0KGgo="}
	aborted := func(m Message) Message { m.Info.Error = Aborted(); m.Info.Finish = ""; return m }
	failed := func(m Message) Message { m.Info.Error = NewError(ErrAPI, "boom"); return m }
	otherModel := func(m Message) Message { m.Info.ModelID = "older"; return m }
	tests := []struct {
		name  string
		msgs  []Message
		media bool
		want  string
	}{
		{
			name: "user text, ignored text and files",
			msgs: []Message{user("m1", text("hi"), &TextPart{Text: "x", Ignored: true}, text(""),
				&FilePart{Mime: "text/plain", URL: "file:///a"}, &FilePart{Mime: "application/x-directory", URL: "file:///d"}, png)},
			want: "user: text(hi) file(image/png,8 bytes,)\n",
		},
		{
			name: "MCP resource references are not sent, their contents are",
			msgs: []Message{user("m1", text("see"),
				&FilePart{Mime: "image/png", URL: "test://logo", Source: ResourceSource("docs", "test://logo", "@docs:test://logo", 4, 21)},
				&FilePart{Mime: "image/png", URL: png.URL, Source: ResourceSource("docs", "test://logo", "@docs:test://logo", 4, 21)})},
			want: "user: text(see) file(image/png,8 bytes,)\n",
		},
		{
			name: "compaction and subtask parts",
			msgs: []Message{user("m1", &CompactionPart{Auto: true}), user("m2", &SubtaskPart{Prompt: "p", Agent: "explore"})},
			want: "user: text(What did we do so far?)\nuser: text(The following tool was executed by the user)\n",
		},
		{
			name: "user message with nothing to send is dropped",
			msgs: []Message{user("m1", &TextPart{Text: "x", Ignored: true})},
			want: "",
		},
		{
			name: "tool states",
			msgs: []Message{assistant("a1", text("look"),
				tool("c1", "completed", func(s *ToolState) { s.Output = "1: x" }),
				tool("c2", "error", func(s *ToolState) { s.Error = "no such file" }),
				tool("c3", "running", nil),
				tool("c4", "pending", func(s *ToolState) { s.Input = nil }),
				tool("c5", "completed", func(s *ToolState) { s.Output = "big"; s.Time.Compacted = 5 }),
			)},
			want: `assistant: text(look) call(c1 read {"filePath":"a"}) call(c2 read {"filePath":"a"}) call(c3 read {"filePath":"a"}) call(c4 read {}) call(c5 read {"filePath":"a"})
tool: result(c1 "1: x" err=false media=0) result(c2 "no such file" err=true media=0) result(c3 "[Tool execution was interrupted]" err=true media=0) result(c4 "[Tool execution was interrupted]" err=true media=0) result(c5 "[Old tool result content cleared]" err=false media=0)
`,
		},
		{
			name: "failed assistant skipped",
			msgs: []Message{user("m1", text("q")), failed(assistant("a1", text("partial")))},
			want: "user: text(q)\n",
		},
		{
			name: "aborted assistant with output kept",
			msgs: []Message{aborted(assistant("a1", &StepStartPart{}, text("partial")))},
			want: "assistant: text(partial)\n",
		},
		{
			name: "aborted assistant with only reasoning skipped",
			msgs: []Message{aborted(assistant("a1", &StepStartPart{}, &ReasoningPart{Text: "hmm"}))},
			want: "",
		},
		{
			name: "reasoning kept with its signature for the same model",
			msgs: []Message{assistant("a1", &ReasoningPart{Text: "think", Metadata: map[string]any{ReasoningSignature: "sig"}}, text("done"))},
			want: "assistant: reasoning(think|sig) text(done)\n",
		},
		{
			name: "reasoning becomes text when the model changed",
			msgs: []Message{otherModel(assistant("a1", &ReasoningPart{Text: "think", Metadata: map[string]any{ReasoningSignature: "sig"}}, text("done")))},
			want: "assistant: text(think) text(done)\n",
		},
		{
			name: "steps split an assistant message",
			msgs: []Message{assistant("a1", &StepStartPart{}, tool("c1", "completed", func(s *ToolState) { s.Output = "o" }),
				&StepFinishPart{}, &StepStartPart{}, text("answer"))},
			want: "assistant: call(c1 read {\"filePath\":\"a\"})\ntool: result(c1 \"o\" err=false media=0)\nassistant: text(answer)\n",
		},
		{
			name: "tool media moved to a user message",
			msgs: []Message{assistant("a1", tool("c1", "completed", func(s *ToolState) { s.Output = "img"; s.Attachments = []*FilePart{png} }))},
			want: "assistant: call(c1 read {\"filePath\":\"a\"})\ntool: result(c1 \"img\" err=false media=0)\nuser: text(Attached media from tool result:) file(image/png,8 bytes,)\n",
		},
		{
			name:  "tool media kept in the result",
			media: true,
			msgs:  []Message{assistant("a1", tool("c1", "completed", func(s *ToolState) { s.Output = "img"; s.Attachments = []*FilePart{png} }))},
			want:  "assistant: call(c1 read {\"filePath\":\"a\"})\ntool: result(c1 \"img\" err=false media=1)\n",
		},
		{
			name: "pruned output drops its media",
			msgs: []Message{assistant("a1", tool("c1", "completed", func(s *ToolState) {
				s.Output = "img"
				s.Attachments = []*FilePart{png}
				s.Time.Compacted = 1
			}))},
			want: "assistant: call(c1 read {\"filePath\":\"a\"})\ntool: result(c1 \"[Old tool result content cleared]\" err=false media=0)\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := render(ToModel(tt.msgs, ConvertOptions{ProviderID: "p", ModelID: "m", ToolResultMedia: tt.media}))
			if got != tt.want {
				t.Errorf("got:\n%swant:\n%s", got, tt.want)
			}
		})
	}
}

func TestDecodeDataURL(t *testing.T) {
	tests := []struct {
		url, data, mime string
		ok              bool
	}{
		{"data:image/png;base64,aGk=", "hi", "image/png", true},
		{"data:text/plain,a%20b", "a b", "text/plain", true},
		{"data:image/png;base64,!!", "", "", false},
		{"file:///x", "", "", false},
		{"data:nocomma", "", "", false},
	}
	for _, tt := range tests {
		data, mime, ok := DecodeDataURL(tt.url)
		if ok != tt.ok || string(data) != tt.data || mime != tt.mime {
			t.Errorf("DecodeDataURL(%q) = %q, %q, %v; want %q, %q, %v", tt.url, data, mime, ok, tt.data, tt.mime, tt.ok)
		}
	}
}
