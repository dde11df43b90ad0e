package message

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// TestOpenCodeRoundTrip decodes messages in OpenCode's export shape and
// checks that encoding them again gives the same JSON, field for field.
func TestOpenCodeRoundTrip(t *testing.T) {
	b, err := os.ReadFile("testdata/opencode_export.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for i, raw := range doc.Messages {
		var m Message
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		for _, p := range m.Parts {
			kinds[p.Type()] = true
			if p.Base().MessageID != m.Info.ID {
				t.Errorf("part %s: messageID %q, want %q", p.Base().ID, p.Base().MessageID, m.Info.ID)
			}
		}
		again, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("message %d: encoding: %v", i, err)
		}
		var want, got any
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(again, &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(want, got) {
			t.Errorf("message %d changed in a round trip:\n got %s\nwant %s", i, again, raw)
		}
	}
	for _, k := range []string{TypeText, TypeReasoning, TypeFile, TypeTool, TypeStepStart, TypeStepFinish,
		TypeSnapshot, TypePatch, TypeAgent, TypeSubtask, TypeRetry, TypeCompaction} {
		if !kinds[k] {
			t.Errorf("the fixture has no %s part", k)
		}
	}
}

func TestUnmarshalRejects(t *testing.T) {
	tests := []struct {
		name string
		json string
	}{
		{"unknown part type", `{"info":{"id":"msg_1","sessionID":"s","role":"user","time":{"created":1},"agent":"build","model":{"providerID":"p","modelID":"m"}},"parts":[{"type":"bogus","id":"p"}]}`},
		{"unknown role", `{"info":{"id":"msg_1","role":"system"},"parts":[]}`},
		{"unknown tool status", `{"info":{"id":"msg_1","sessionID":"s","role":"user","time":{"created":1},"agent":"build","model":{"providerID":"p","modelID":"m"}},"parts":[{"type":"tool","id":"p","callID":"c","tool":"read","state":{"status":"done"}}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m Message
			if err := json.Unmarshal([]byte(tt.json), &m); err == nil {
				t.Fatalf("decoded without error: %+v", m)
			}
		})
	}
}

func TestToolStateFieldsByStatus(t *testing.T) {
	st := ToolState{
		Input: json.RawMessage(`{"a":1}`), Raw: `{"a":`, Output: "out", Title: "t",
		Metadata: map[string]any{"k": "v"}, Error: "boom", Time: ToolTime{Start: 1, End: 2, Compacted: 3},
	}
	tests := []struct {
		status ToolStatus
		want   string
	}{
		{ToolPending, `{"status":"pending","input":{"a":1},"raw":"{\"a\":"}`},
		{ToolRunning, `{"status":"running","input":{"a":1},"title":"t","metadata":{"k":"v"},"time":{"start":1}}`},
		{ToolCompleted, `{"status":"completed","input":{"a":1},"output":"out","title":"t","metadata":{"k":"v"},"time":{"start":1,"end":2,"compacted":3}}`},
		{ToolError, `{"status":"error","input":{"a":1},"error":"boom","metadata":{"k":"v"},"time":{"start":1,"end":2}}`},
	}
	for _, tt := range tests {
		t.Run(string(tt.status), func(t *testing.T) {
			s := st
			s.Status = tt.status
			got, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
	if got, _ := json.Marshal(ToolState{Status: ToolPending}); string(got) != `{"status":"pending","input":{},"raw":""}` {
		t.Errorf("a state without input encodes as %s", got)
	}
}

func TestObjectInput(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{ "a" : 1 }`, `{"a":1}`},
		{``, `{}`},
		{`[1]`, `{}`},
		{`{"a":`, `{}`},
		{`"s"`, `{}`},
	}
	for _, tt := range tests {
		if got := string(ObjectInput([]byte(tt.in))); got != tt.want {
			t.Errorf("ObjectInput(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// TestUserExtra checks the fields few user messages set: each survives a
// round trip, a message that sets none has no Extra, and the accessors
// read them whether the fast decoder or encoding/json took the message.
func TestUserExtra(t *testing.T) {
	const head = `{"id":"msg_1","sessionID":"ses_1","role":"user","time":{"created":1},"agent":"build","model":{"providerID":"p","modelID":"m"}`
	tests := []struct {
		name  string
		extra string // the JSON fields after head
		check func(*Info) bool
	}{
		{"none", ``, func(m *Info) bool {
			return m.Extra == nil && m.System() == "" && m.Tools() == nil && m.Permission() == nil
		}},
		{"system", `,"system":"be brief"`, func(m *Info) bool { return m.System() == "be brief" }},
		{"tools", `,"tools":{"bash":false}`, func(m *Info) bool { return m.Tools()["bash"] == false && len(m.Tools()) == 1 }},
		{"permission", `,"permission":[{"permission":"bash","pattern":"*","action":"allow"}]`, func(m *Info) bool {
			return string(m.Permission()) == `[{"permission":"bash","pattern":"*","action":"allow"}]`
		}},
		{"format", `,"format":{"type":"text"}`, func(m *Info) bool { return m.Extra != nil && string(m.Extra.Format) == `{"type":"text"}` }},
		{"summary", `,"summary":{"title":"t","diffs":[]}`, func(m *Info) bool { return m.Extra != nil && m.Extra.Summary != nil && m.Extra.Summary.Title == "t" }},
		{"all", `,"system":"s","tools":{"read":true},"format":{"type":"text"},"summary":{"diffs":[]}`, func(m *Info) bool {
			return m.System() == "s" && m.Tools()["read"] && m.Extra.Format != nil && m.Extra.Summary != nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := head + tt.extra + `}`
			var m Info
			if err := json.Unmarshal([]byte(in), &m); err != nil {
				t.Fatal(err)
			}
			if !tt.check(&m) {
				t.Errorf("decoded %s as %+v (extra %+v)", in, m, m.Extra)
			}
			out, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			var want, got any
			if err := json.Unmarshal([]byte(in), &want); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(want, got) {
				t.Errorf("round trip changed it:\n got %s\nwant %s", out, in)
			}
		})
	}
}
