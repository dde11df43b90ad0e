package local

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/session"
)

// subset reports the paths where got has a value that want lacks or has
// otherwise: the client's JSON must say what the engine's OpenCode JSON
// says, under the same names.
func subset(path string, got, want any) []string {
	switch g := got.(type) {
	case map[string]any:
		w, ok := want.(map[string]any)
		if !ok {
			return []string{path + ": an object where the engine has " + reflect.TypeOf(want).String()}
		}
		var out []string
		for k, v := range g {
			wv, ok := w[k]
			if !ok {
				out = append(out, path+"."+k+": not in the engine's JSON")
				continue
			}
			out = append(out, subset(path+"."+k, v, wv)...)
		}
		return out
	case []any:
		w, ok := want.([]any)
		if len(g) == 0 && want == nil {
			return nil // an empty list where the engine writes null
		}
		if !ok || len(w) != len(g) {
			return []string{path + ": a different list"}
		}
		var out []string
		for i := range g {
			out = append(out, subset(path, g[i], w[i])...)
		}
		return out
	}
	if !reflect.DeepEqual(got, want) {
		b1, _ := json.Marshal(got)
		b2, _ := json.Marshal(want)
		return []string{path + ": " + string(b1) + ", the engine has " + string(b2)}
	}
	return nil
}

func generic(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestConvertKeepsOpenCodeShapes: the client's records, encoded, carry
// the engine's fields under OpenCode's names and with the same values,
// so the HTTP implementation can serve and read them one to one.
func TestConvertKeepsOpenCodeShapes(t *testing.T) {
	base := func(id string) message.PartBase {
		return message.PartBase{ID: id, SessionID: "ses_1", MessageID: "msg_2"}
	}
	retryable := true
	parts := []message.Part{
		&message.TextPart{PartBase: base("prt_1"), Text: "hello", Synthetic: true, Time: &message.PartTime{Start: 5, End: 6}},
		&message.ReasoningPart{PartBase: base("prt_2"), Text: "thinking", Time: message.PartTime{Start: 7}},
		&message.FilePart{PartBase: base("prt_3"), Mime: "image/png", Filename: "a.png", URL: "data:image/png;base64,AA==",
			Source: json.RawMessage(`{"type":"file","path":"a.png"}`)},
		&message.ToolPart{PartBase: base("prt_4"), CallID: "call_1", Tool: "bash", State: message.ToolState{
			Status: message.ToolCompleted, Input: json.RawMessage(`{"command":"ls"}`), Output: "a\n", Title: "ls",
			Metadata: map[string]any{"exit": 0.0}, Time: message.ToolTime{Start: 1, End: 2}}},
		&message.ToolPart{PartBase: base("prt_5"), CallID: "call_2", Tool: "edit", State: message.ToolState{
			Status: message.ToolError, Input: json.RawMessage(`{"filePath":"x"}`), Error: "no such file", Time: message.ToolTime{Start: 3, End: 4}}},
		&message.StepStartPart{PartBase: base("prt_6"), Snapshot: "abc"},
		&message.StepFinishPart{PartBase: base("prt_7"), Reason: "stop", Cost: 0.5, Tokens: message.Tokens{Input: 10, Output: 3, Cache: message.TokensCache{Read: 2}}},
		&message.PatchPart{PartBase: base("prt_8"), Hash: "h", Files: []string{"a.go"}},
		&message.AgentPart{PartBase: base("prt_9"), Name: "explore"},
		&message.SubtaskPart{PartBase: base("prt_a"), Prompt: "p", Description: "d", Agent: "general",
			Model: &message.ModelRef{ProviderID: "x", ModelID: "y"}, Command: "review"},
		&message.RetryPart{PartBase: base("prt_b"), Attempt: 2, Error: message.Error{Name: message.ErrAPI,
			Data: message.ErrorData{Message: "busy", StatusCode: 529, IsRetryable: &retryable}}, Time: message.RetryTime{Created: 9}},
		&message.CompactionPart{PartBase: base("prt_c"), Auto: true, Overflow: true},
	}
	msgs := []message.Message{
		{Info: message.Info{ID: "msg_1", SessionID: "ses_1", Role: message.RoleUser, Time: message.Time{Created: 1},
			Agent: "build", Model: message.ModelRef{ProviderID: "fake", ModelID: "model"}, Extra: &message.UserExtra{System: "extra"}}},
		{Info: message.Info{ID: "msg_2", SessionID: "ses_1", Role: message.RoleAssistant, Time: message.Time{Created: 2, Completed: 3},
			Agent: "build", ParentID: "msg_1", ModelID: "model", ProviderID: "fake", Mode: "build",
			Path: message.Path{Cwd: "/p", Root: "/p"}, Cost: 0.25, Tokens: message.Tokens{Input: 4, Output: 5, Reasoning: 1},
			Finish: "stop", Error: &message.Error{Name: message.ErrAborted, Data: message.ErrorData{Message: "stopped"}}},
			Parts: parts},
	}
	for _, m := range msgs {
		for _, bad := range subset("message", generic(t, toMessage(m)), generic(t, m)) {
			t.Error(bad)
		}
	}
	sess := session.Info{ID: "ses_1", Slug: "calm-otter", ProjectID: "p", Directory: "/p", ParentID: "ses_0", Title: "t",
		Version: "1", Agent: "build", Model: &session.ModelInfo{ID: "model", ProviderID: "fake"}, Cost: 1.5,
		Tokens: &message.Tokens{Input: 1}, Time: session.Time{Created: 1, Updated: 2},
		Permission: permission.Ruleset{{Permission: "bash", Pattern: "*", Action: permission.Ask}}}
	for _, bad := range subset("session", generic(t, toSession(sess)), generic(t, sess)) {
		t.Error(bad)
	}
	req := permission.Request{ID: "per_1", SessionID: "ses_1", Permission: "bash", Patterns: []string{"ls"},
		Metadata: map[string]any{"k": "v"}, Always: []string{"ls *"}, Tool: &permission.ToolRef{MessageID: "msg_2", CallID: "call_1"}}
	for _, bad := range subset("permission", generic(t, toPermission(req)), generic(t, req)) {
		t.Error(bad)
	}
	// Every field of the engine's parts reaches the client.
	for _, p := range parts {
		for _, bad := range subset("engine part", generic(t, p), generic(t, toPart(p))) {
			t.Error(bad)
		}
	}
}
