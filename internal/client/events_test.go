package client

import (
	"reflect"
	"strings"
	"testing"
)

// TestEventsRoundTrip: every event encodes as OpenCode's {type,
// properties} and decodes to itself.
func TestEventsRoundTrip(t *testing.T) {
	s := Session{ID: "ses_1", Title: "t", Time: SessionTime{Created: 1, Updated: 2}}
	events := []Event{
		SessionCreatedEvent{Info: s},
		SessionUpdatedEvent{Info: s},
		SessionDeletedEvent{Info: s},
		SessionStatusEvent{SessionID: "ses_1", Status: SessionStatus{Type: StatusRetry, Attempt: 2, Message: "busy", Next: 9}},
		SessionErrorEvent{SessionID: "ses_1", Error: &MessageError{Name: "APIError", Data: MessageErrorData{Message: "x", StatusCode: 500}}},
		SessionCompactedEvent{SessionID: "ses_1"},
		MessageUpdatedEvent{Info: MessageInfo{ID: "msg_1", SessionID: "ses_1", Role: RoleUser, Model: &ModelRef{ProviderID: "p", ModelID: "m"}}},
		MessageRemovedEvent{SessionID: "ses_1", MessageID: "msg_1"},
		PartUpdatedEvent{Part: Part{ID: "prt_1", SessionID: "ses_1", MessageID: "msg_1", Type: PartTool, CallID: "c", Tool: "bash",
			State: &ToolState{Status: ToolRunning, Input: []byte(`{"command":"ls"}`), Metadata: map[string]any{"output": "a"}, Time: &ToolTime{Start: 1}}}},
		PartDeltaEvent{SessionID: "ses_1", MessageID: "msg_1", PartID: "prt_1", Field: "text", Delta: "hi"},
		PartRemovedEvent{SessionID: "ses_1", MessageID: "msg_1", PartID: "prt_1"},
		PermissionAskedEvent{PermissionRequest{ID: "per_1", SessionID: "ses_1", Permission: "bash", Patterns: []string{"ls"}, Always: []string{"ls *"}, Metadata: map[string]any{"command": "ls"},
			Tool: &ToolRef{MessageID: "msg_1", CallID: "c"}}},
		PermissionRepliedEvent{SessionID: "ses_1", RequestID: "per_1", Reply: ReplyOnce},
		QuestionAskedEvent{QuestionRequest{ID: "que_1", SessionID: "ses_1", Questions: []QuestionInfo{{Question: "q", Header: "h",
			Options: []QuestionOption{{Label: "a", Description: "b"}}}}}},
		QuestionRepliedEvent{SessionID: "ses_1", RequestID: "que_1", Answers: [][]string{{"a"}}},
		QuestionRejectedEvent{SessionID: "ses_1", RequestID: "que_1"},
		TodoUpdatedEvent{SessionID: "ses_1", Todos: []Todo{{Content: "c", Status: "pending", Priority: "high"}}},
		HookNoticeEvent{SessionID: "ses_1", Event: "PostToolUse", Command: "./lint.sh", Origin: ".claude/settings.json", Error: true, Text: "exited with status 2"},
		EventsDroppedEvent{Count: 3},
	}
	seen := map[string]bool{}
	for _, e := range events {
		b, err := MarshalEvent(e)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(b), `{"type":"`+e.Type()+`","properties":{`) {
			t.Errorf("%s encodes as %s", e.Type(), b)
		}
		got, err := UnmarshalEvent(b)
		if err != nil {
			t.Fatalf("%s: %v", e.Type(), err)
		}
		if !reflect.DeepEqual(got, e) {
			t.Errorf("%s came back as %#v, want %#v", e.Type(), got, e)
		}
		if seen[e.Type()] {
			t.Errorf("two events are called %s", e.Type())
		}
		seen[e.Type()] = true
	}
	if got, err := UnmarshalEvent([]byte(`{"type":"lsp.updated","properties":{}}`)); got != nil || err != nil {
		t.Errorf("an unknown event: %v, %v; want it skipped", got, err)
	}
	if _, err := UnmarshalEvent([]byte(`{"type":"session.status","properties":{"status":7}}`)); err == nil {
		t.Error("a malformed event decoded")
	}
}

// TestEventFilter: the session and the types select; the drop notice
// always passes.
func TestEventFilter(t *testing.T) {
	delta := PartDeltaEvent{SessionID: "ses_a"}
	tests := []struct {
		f    EventFilter
		e    Event
		want bool
	}{
		{EventFilter{}, delta, true},
		{EventFilter{SessionID: "ses_a"}, delta, true},
		{EventFilter{SessionID: "ses_b"}, delta, false},
		{EventFilter{Types: []string{TypePartUpdated}}, delta, false},
		{EventFilter{Types: []string{TypePartUpdated, TypePartDelta}}, delta, true},
		{EventFilter{SessionID: "ses_b", Types: []string{TypePartUpdated}}, EventsDroppedEvent{Count: 1}, true},
	}
	for _, tt := range tests {
		if got := tt.f.Match(tt.e); got != tt.want {
			t.Errorf("%+v matches %s: %v, want %v", tt.f, tt.e.Type(), got, tt.want)
		}
	}
}
