package mcp

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// FuzzServerMessages feeds codeloop's handling of what an MCP server sends
// with arbitrary JSON: a tools/list entry (its name and input schema) and
// a tools/call result (its content). Nothing may panic; a tool's name must
// be one every provider accepts, its schema an object schema, and a
// result's text must hold every text block the server sent.
func FuzzServerMessages(f *testing.F) {
	f.Add("docs", []byte(`{"name":"search","description":"d","inputSchema":{"type":"object","properties":{"q":{"type":"string"}},"$schema":"x"}}`),
		[]byte(`{"content":[{"type":"text","text":"hello"},{"type":"image","mimeType":"image/png","data":"AAAA"}]}`))
	f.Add("a b/c", []byte(`{"name":"ü tool with spaces and a very long name that goes past the limit providers accept for names","inputSchema":{"type":"string"}}`),
		[]byte(`{"content":[{"type":"resource","resource":{"uri":"file:///a","text":"body"}},{"type":"resource_link","uri":"file:///b","name":"b"}],"isError":true}`))
	f.Add("s", []byte(`{"name":"","inputSchema":null}`), []byte(`{"content":[{"type":"audio","mimeType":"","data":""},{"type":"resource","resource":{"uri":"x","blob":"AAAA"}}]}`))
	f.Add("s", []byte(`{"name":"t","inputSchema":{"properties":[1,2]}}`), []byte(`{"content":[{"type":"unknown"}]}`))
	valid := regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	f.Fuzz(func(t *testing.T, server string, toolJSON, resultJSON []byte) {
		var tl sdk.Tool
		if json.Unmarshal(toolJSON, &tl) == nil {
			name := ToolName(server, tl.Name)
			if !valid.MatchString(name) {
				t.Fatalf("ToolName(%q, %q) = %q, which providers refuse", server, tl.Name, name)
			}
			var schema map[string]any
			if err := json.Unmarshal(sanitizeSchema(tl.InputSchema), &schema); err != nil {
				t.Fatalf("sanitised schema is not an object: %v", err)
			}
			if _, ok := schema["properties"].(map[string]any); !ok || schema["type"] != "object" {
				t.Fatalf("sanitised schema %v is not an object schema with properties", schema)
			}
		}
		var res sdk.CallToolResult
		if json.Unmarshal(resultJSON, &res) != nil {
			return
		}
		text, atts := contentToText(res.Content)
		for _, c := range res.Content {
			if tc, ok := c.(*sdk.TextContent); ok && !strings.Contains(text, tc.Text) {
				t.Fatalf("text block %q missing from the result %q", tc.Text, text)
			}
		}
		for _, a := range atts {
			if !strings.HasPrefix(a.URL, "data:") || a.Mime == "" {
				t.Fatalf("attachment %+v is not a data URL with a type", a)
			}
		}
	})
}
