package message

import (
	"encoding/json"
	"testing"
)

func TestFilePartResource(t *testing.T) {
	tests := []struct {
		name        string
		part        FilePart
		server, uri string
		ok          bool
	}{
		{name: "built source", part: FilePart{URL: "test://readme", Source: ResourceSource("docs", "test://readme", "@docs:test://readme", 3, 22)},
			server: "docs", uri: "test://readme", ok: true},
		{name: "OpenCode's source", part: FilePart{URL: "file:///r.md", Source: json.RawMessage(
			`{"type":"resource","clientName":"fs","uri":"file:///r.md","text":{"value":"@r.md","start":0,"end":5}}`)},
			server: "fs", uri: "file:///r.md", ok: true},
		{name: "URI from the URL", part: FilePart{URL: "test://x", Source: json.RawMessage(`{"type":"resource","clientName":"fs"}`)},
			server: "fs", uri: "test://x", ok: true},
		{name: "file source", part: FilePart{URL: "file:///a", Source: json.RawMessage(`{"type":"file","path":"a"}`)}},
		{name: "no server", part: FilePart{URL: "test://x", Source: json.RawMessage(`{"type":"resource","uri":"test://x"}`)}},
		{name: "no source", part: FilePart{URL: "test://x"}},
		{name: "bad source", part: FilePart{URL: "test://x", Source: json.RawMessage(`[1]`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			server, uri, ok := tt.part.Resource()
			if server != tt.server || uri != tt.uri || ok != tt.ok {
				t.Errorf("Resource() = %q, %q, %v; want %q, %q, %v", server, uri, ok, tt.server, tt.uri, tt.ok)
			}
		})
	}
	var src map[string]any
	if err := json.Unmarshal(ResourceSource("docs", "u", "@docs:u", 1, 8), &src); err != nil {
		t.Fatal(err)
	}
	text, _ := src["text"].(map[string]any)
	if src["type"] != "resource" || src["clientName"] != "docs" || src["uri"] != "u" || text["value"] != "@docs:u" || text["start"] != 1.0 || text["end"] != 8.0 {
		t.Errorf("source = %v", src)
	}
}
