package client

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestOpenCodeShapes: the members OpenCode's clients require are present
// even when empty or zero.
func TestOpenCodeShapes(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want []string
		not  []string
	}{
		{"an assistant message", MessageInfo{ID: "msg_1", SessionID: "ses_1", Role: RoleAssistant},
			[]string{`"cost":0`, `"tokens":{"input":0,"output":0,"reasoning":0,"cache":{"read":0,"write":0}}`}, nil},
		{"an assistant message with a cost", MessageInfo{Role: RoleAssistant, Cost: 0.5, Tokens: &Tokens{Input: 3}},
			[]string{`"cost":0.5`, `"input":3`}, nil},
		{"a user message", MessageInfo{ID: "msg_1", Role: RoleUser}, nil, []string{`"cost"`, `"tokens"`}},
		{"a permission request", PermissionRequest{ID: "per_1"}, []string{`"metadata":{}`, `"patterns":[]`, `"always":[]`}, nil},
		{"session.created", SessionCreatedEvent{Info: Session{ID: "ses_1"}}, []string{`"sessionID":"ses_1"`, `"info":{"id":"ses_1"`}, nil},
		{"session.deleted", SessionDeletedEvent{Info: Session{ID: "ses_1"}}, []string{`"sessionID":"ses_1"`}, nil},
		{"message.updated", MessageUpdatedEvent{Info: MessageInfo{SessionID: "ses_1", Role: RoleUser}}, []string{`"sessionID":"ses_1","info":{`}, nil},
		{"message.part.updated", PartUpdatedEvent{Part: Part{SessionID: "ses_1"}}, []string{`"sessionID":"ses_1","part":{`}, nil},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.v)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tt.want {
			if !strings.Contains(string(b), w) {
				t.Errorf("%s encodes as %s, without %s", tt.name, b, w)
			}
		}
		for _, w := range tt.not {
			if strings.Contains(string(b), w) {
				t.Errorf("%s encodes as %s, with %s", tt.name, b, w)
			}
		}
	}
}
