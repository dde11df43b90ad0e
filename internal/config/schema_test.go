package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/tailscale/hujson"
)

// TestSchemaValidates checks the generated schema against configs: the
// reference fixture and others the parser accepts must validate, and ones
// it rejects for shape must not.
func TestSchemaValidates(t *testing.T) {
	t.Parallel()
	s, err := Schema()
	if err != nil {
		t.Fatal(err)
	}
	// The schema survives a JSON round trip (what editors get).
	out, err := SchemaJSON()
	if err != nil {
		t.Fatal(err)
	}
	var back jsonschema.Schema
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	if back.Schema != SchemaURL || back.AdditionalProperties == nil {
		t.Errorf("schema head = %q, additionalProperties %v", back.Schema, back.AdditionalProperties)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}

	fixture, err := os.ReadFile(filepath.Join("testdata", "opencode.jsonc"))
	if err != nil {
		t.Fatal(err)
	}
	std, err := hujson.Standardize(fixture)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, text string
		valid      bool
	}{
		{"reference fixture", string(std), true},
		{"permission string", `{"permission": "allow"}`, true},
		{"permission list", `{"permission": [{"permission": "bash", "pattern": "*", "action": "deny"}]}`, true},
		{"permission bad action", `{"permission": {"bash": "maybe"}}`, false},
		{"lsp true", `{"lsp": true, "formatter": {"gofmt": {"disabled": true}}}`, true},
		{"lsp string", `{"lsp": "on"}`, false},
		{"unknown top-level key", `{"modle": "x"}`, false},
		{"agent extra key", `{"agent": {"a": {"reasoningEffort": "high"}}}`, true},
		{"provider unknown key", `{"provider": {"p": {"npmm": "x"}}}`, false},
		{"provider option extra key", `{"provider": {"p": {"options": {"baseURL": "u", "x": 1, "timeout": false}}}}`, true},
		{"mcp enabled only", `{"mcp": {"m": {"enabled": false}}}`, true},
		{"mcp local with url", `{"mcp": {"m": {"type": "local", "command": ["x"], "url": "u"}}}`, false},
		{"mcp oauth false", `{"mcp": {"m": {"type": "remote", "url": "u", "oauth": false}}}`, true},
		{"plugin tuple", `{"plugin": ["a", ["b", {"k": 1}]]}`, true},
		{"autoupdate notify", `{"autoupdate": "notify"}`, true},
		{"autoupdate other", `{"autoupdate": "sometimes"}`, false},
		{"command needs template", `{"command": {"c": {"description": "d"}}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v any
			if err := json.Unmarshal([]byte(tt.text), &v); err != nil {
				t.Fatal(err)
			}
			err := resolved.Validate(v)
			if (err == nil) != tt.valid {
				t.Errorf("valid = %v, want %v (%v)", err == nil, tt.valid, err)
			}
			// The parser agrees with the schema.
			_, perr := Parse([]byte(tt.text), ParseOptions{Name: "x.json"})
			if (perr == nil) != tt.valid && !strings.Contains(tt.name, "fixture") {
				t.Errorf("parser valid = %v, want %v (%v)", perr == nil, tt.valid, perr)
			}
		})
	}
}
