package config

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tailscale/hujson"
)

func fakeEnv(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// TestParseReference parses an OpenCode config in every shape the reference
// describes and checks that nothing is lost: every value of the file appears
// in the marshalled result.
func TestParseReference(t *testing.T) {
	t.Parallel()
	name := filepath.Join("testdata", "opencode.jsonc")
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	env := fakeEnv(map[string]string{"LOCAL_API_KEY": "sk-local", "DOCS_TOKEN": "tok"})
	cfg, err := Parse(data, ParseOptions{Name: name, Dir: "testdata", Getenv: env})
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}

	// Spot checks on typed fields.
	local := cfg.Provider["local"]
	if local.NPM != "@ai-sdk/openai-compatible" || local.Options.BaseURL != "http://127.0.0.1:8080/v1" {
		t.Errorf("provider local = %+v", local)
	}
	if local.Options.APIKey != "sk-local" {
		t.Errorf("apiKey = %q, want the {env:} value", local.Options.APIKey)
	}
	if local.Options.Timeout == nil || local.Options.Timeout.Millis != 600000 || local.Options.HeaderTimeout == nil || !local.Options.HeaderTimeout.Disabled {
		t.Errorf("timeouts = %+v %+v", local.Options.Timeout, local.Options.HeaderTimeout)
	}
	if local.Options.Extra["includeUsage"] != true {
		t.Errorf("extra provider options = %v", local.Options.Extra)
	}
	model := local.Models["qwen3-coder"]
	if model.Limit == nil || model.Limit.Context != 131072 || model.Interleaved == nil || model.Interleaved.Field != "reasoning_content" {
		t.Errorf("model = %+v", model)
	}
	review := cfg.Agent["review"]
	if review.Prompt != "You review code.\nBe \"strict\"." {
		t.Errorf("prompt = %q, want the trimmed {file:} content", review.Prompt)
	}
	if review.Options["reasoningEffort"] != "high" {
		t.Errorf("agent options = %v, want unknown keys merged in", review.Options)
	}
	wantRules := Permission{
		{Permission: "edit", Pattern: "*", Action: "ask"},
		{Permission: "bash", Pattern: "*", Action: "ask"},
		{Permission: "bash", Pattern: "git status", Action: "allow"},
		{Permission: "bash", Pattern: "git *", Action: "ask"},
		{Permission: "bash", Pattern: "rm *", Action: "deny"},
		{Permission: "external_directory", Pattern: "~/src/**", Action: "allow"},
		{Permission: "webfetch", Pattern: "*", Action: "allow"},
	}
	if !reflect.DeepEqual(cfg.Permission, wantRules) {
		t.Errorf("permission =\n%v\nwant\n%v", cfg.Permission, wantRules)
	}
	if cfg.MCP["docs"].OAuth == nil || !cfg.MCP["docs"].OAuth.Disabled {
		t.Errorf("mcp docs oauth = %+v, want disabled", cfg.MCP["docs"].OAuth)
	}
	if cfg.Experimental.MCPTimeout == nil || *cfg.Experimental.MCPTimeout != 60000 {
		t.Errorf("experimental = %+v", cfg.Experimental)
	}

	// No loss: the file's values, with the documented moves applied, equal
	// the marshalled config.
	src := &source{name: name, orig: data}
	if err := src.substitute(env, "testdata", "", false); err != nil {
		t.Fatal(err)
	}
	std, err := hujson.Standardize(src.text)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	if err := json.Unmarshal(std, &want); err != nil {
		t.Fatal(err)
	}
	agent := want["agent"].(map[string]any)["review"].(map[string]any)
	agent["options"] = map[string]any{"reasoningEffort": agent["reasoningEffort"]}
	delete(agent, "reasoningEffort")

	out, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", "  ")
		w, _ := json.MarshalIndent(want, "", "  ")
		t.Errorf("marshalled config differs from the file\ngot:\n%s\nwant:\n%s", g, w)
	}

	// And the marshalled form parses back to the same config.
	again, err := Parse(out, ParseOptions{Name: "roundtrip"})
	if err != nil {
		t.Fatalf("re-parse: %v", err)
	}
	if !reflect.DeepEqual(again, cfg) {
		a, _ := json.Marshal(again)
		t.Errorf("re-parsed config differs:\n%s\n%s", a, out)
	}
}

func TestJSONC(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text, model string
	}{
		{"line comment", "{\n// the model\n\"model\": \"a/b\"\n}", "a/b"},
		{"block comment", `{/* c */ "model": /* d */ "a/b"}`, "a/b"},
		{"trailing comma in object", `{"model": "a/b",}`, "a/b"},
		{"trailing comma in array", `{"model": "a/b", "instructions": ["x",],}`, "a/b"},
		{"comment after value", "{\"model\": \"a/b\" // note\n}", "a/b"},
		{"comment markers inside a string", `{"model": "a//b/*c*/"}`, "a//b/*c*/"},
		{"empty file", "  \n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse([]byte(tt.text), ParseOptions{Name: "c.jsonc"})
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Model != tt.model {
				t.Errorf("model = %q, want %q", cfg.Model, tt.model)
			}
		})
	}
}

func TestSubstitution(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	home := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "key.txt"), []byte("  secret-\"1\"\n\n"), 0o644))
	must(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "sub", "p.md"), []byte("line1\nline2\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(home, "h.txt"), []byte("from home"), 0o644))
	env := fakeEnv(map[string]string{"MODEL": "openai/gpt-5", "EMPTY": ""})

	tests := []struct {
		name, text, model, prompt string
		errSub                    string // substring of the error, or "" for success
		line, col                 int
	}{
		{name: "env set", text: `{"model": "{env:MODEL}"}`, model: "openai/gpt-5"},
		{name: "env unset is empty", text: `{"model": "x{env:NOPE}y"}`, model: "xy"},
		{name: "env outside strings", text: `{"model": "{env:MODEL}", "snapshot": {env:NOPE}true}`, model: "openai/gpt-5"},
		{name: "file relative", text: `{"model": "{file:key.txt}"}`, model: `secret-"1"`},
		{name: "file in sub directory keeps newlines", text: `{"agent": {"a": {"prompt": "{file:sub/p.md}"}}}`, prompt: "line1\nline2"},
		{name: "file from home", text: `{"model": "{file:~/h.txt}"}`, model: "from home"},
		{name: "file absolute", text: `{"model": "{file:` + filepath.ToSlash(filepath.Join(home, "h.txt")) + `}"}`, model: "from home"},
		{name: "file in comment line skipped", text: "{\n  // \"model\": \"{file:missing.txt}\"\n  \"model\": \"m\"\n}", model: "m"},
		{name: "file missing", text: "{\n  \"model\": \"{file:missing.txt}\"\n}", errSub: "missing.txt", line: 2, col: 13},
		{name: "file missing after env on the same line", text: `{"a": "{env:MODEL}", "model": "{file:nope}"}`, errSub: "nope", line: 1, col: 32},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse([]byte(tt.text), ParseOptions{Name: "c.json", Dir: dir, Home: home, Getenv: env})
			if tt.errSub != "" {
				var ce *Error
				if !errors.As(err, &ce) {
					t.Fatalf("err = %v, want *Error", err)
				}
				if !strings.Contains(ce.Msg, tt.errSub) || ce.Line != tt.line || ce.Col != tt.col || ce.File != "c.json" {
					t.Errorf("err = %+v, want %q at %d:%d", ce, tt.errSub, tt.line, tt.col)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Model != tt.model {
				t.Errorf("model = %q, want %q", cfg.Model, tt.model)
			}
			if tt.prompt != "" && cfg.Agent["a"].Prompt != tt.prompt {
				t.Errorf("prompt = %q, want %q", cfg.Agent["a"].Prompt, tt.prompt)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	env := fakeEnv(map[string]string{"LONG": strings.Repeat("x", 40)})
	tests := []struct {
		name       string
		text       string
		key        string
		suggestion string
		line, col  int
		msgSub     string
	}{
		{name: "unknown top-level key", text: "{\n  \"modle\": \"a/b\"\n}", key: "modle", suggestion: "model", line: 2, col: 3, msgSub: "unknown key"},
		{name: "unknown key with case typo", text: `{"smallModel": "x"}`, key: "smallModel", suggestion: "small_model", line: 1, col: 2},
		{name: "unknown key far from all", text: `{"zzzzzzzzzzzz": 1}`, key: "zzzzzzzzzzzz", suggestion: "", line: 1, col: 2},
		{name: "column after env substitution", text: `{"model": "{env:LONG}", "modle": 1}`, key: "modle", suggestion: "model", line: 1, col: 25},
		{name: "unknown provider key", text: `{"provider": {"p": {"npmm": "x"}}}`, key: "provider.p.npmm", suggestion: "npm", line: 1, col: 21},
		{name: "unknown command key", text: `{"command": {"c": {"template": "t", "subtaks": true}}}`, key: "command.c.subtaks", suggestion: "subtask", line: 1, col: 37},
		{name: "command without template", text: `{"command": {"c": {"description": "d"}}}`, line: 1, col: 19, msgSub: "template"},
		{name: "remote key on local mcp", text: `{"mcp": {"m": {"type": "local", "command": ["x"], "url": "u"}}}`, key: "mcp.m.url", line: 1, col: 51},
		{name: "mcp bad type", text: `{"mcp": {"m": {"type": "stdio", "command": ["x"]}}}`, line: 1, col: 24, msgSub: "local"},
		{name: "local mcp without command", text: `{"mcp": {"m": {"type": "local"}}}`, line: 1, col: 15, msgSub: "command"},
		{name: "syntax error missing comma", text: "{\n  \"model\": \"a\"\n  \"share\": \"auto\"\n}", line: 3, col: 3, msgSub: "syntax error"},
		{name: "syntax error unterminated", text: "{\n  \"model\": \"a", line: 2, col: 14, msgSub: "syntax error"},
		{name: "type error string for bool", text: "{\n\t\"autoshare\": \"yes\"\n}", key: "autoshare", line: 2, col: 15, msgSub: "boolean"},
		{name: "type error float for int", text: `{"subagent_depth": 1.5}`, key: "subagent_depth", line: 1, col: 20, msgSub: "integer"},
		{name: "bad permission action", text: `{"permission": {"bash": {"rm *": "nope"}}}`, line: 1, col: 34, msgSub: "allow, ask or deny"},
		{name: "lsp must be bool or object", text: `{"lsp": "yes"}`, key: "lsp", line: 1, col: 9},
		{name: "not an object", text: `[1]`, line: 1, col: 1, msgSub: "object"},
		{name: "agent nested type error", text: `{"agent": {"a": {"temperature": "hot"}}}`, key: "agent.a.temperature", line: 1, col: 33},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.text), ParseOptions{Name: "/p/opencode.json", Getenv: env})
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want *Error", err)
			}
			if ce.File != "/p/opencode.json" || ce.Line != tt.line || ce.Col != tt.col {
				t.Errorf("at %s:%d:%d, want /p/opencode.json:%d:%d (%v)", ce.File, ce.Line, ce.Col, tt.line, tt.col, ce)
			}
			if tt.key != "" && ce.Key != tt.key {
				t.Errorf("key = %q, want %q", ce.Key, tt.key)
			}
			if ce.Suggestion != tt.suggestion {
				t.Errorf("suggestion = %q, want %q", ce.Suggestion, tt.suggestion)
			}
			if !strings.Contains(ce.Msg, tt.msgSub) {
				t.Errorf("msg = %q, want it to contain %q", ce.Msg, tt.msgSub)
			}
			if !strings.HasPrefix(ce.Error(), ce.File+":") {
				t.Errorf("Error() = %q, want it to start with the file", ce.Error())
			}
		})
	}
}

func TestPermissionForms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		want       Permission
		marshal    string
	}{
		{"action for everything", `"allow"`, Permission{{Permission: "*", Pattern: "*", Action: "allow"}}, `{"*":"allow"}`},
		{"string per permission", `{"read": "deny", "edit": "ask"}`, Permission{{Permission: "read", Pattern: "*", Action: "deny"}, {Permission: "edit", Pattern: "*", Action: "ask"}}, `{"read":"deny","edit":"ask"}`},
		{"patterns keep file order", `{"bash": {"z*": "deny", "a*": "allow", "*": "ask"}}`,
			Permission{{Permission: "bash", Pattern: "z*", Action: "deny"}, {Permission: "bash", Pattern: "a*", Action: "allow"}, {Permission: "bash", Pattern: "*", Action: "ask"}}, `{"bash":{"z*":"deny","a*":"allow","*":"ask"}}`},
		{"home is not expanded", `{"external_directory": {"~/x/*": "allow", "$HOME/y": "deny"}}`,
			Permission{{Permission: "external_directory", Pattern: "~/x/*", Action: "allow"}, {Permission: "external_directory", Pattern: "$HOME/y", Action: "deny"}}, `{"external_directory":{"~/x/*":"allow","$HOME/y":"deny"}}`},
		{"list form", `[{"permission": "a", "pattern": "*", "action": "allow"}, {"permission": "b", "pattern": "*", "action": "deny"}, {"permission": "a", "pattern": "x", "action": "deny"}]`,
			Permission{{Permission: "a", Pattern: "*", Action: "allow"}, {Permission: "b", Pattern: "*", Action: "deny"}, {Permission: "a", Pattern: "x", Action: "deny"}}, `[{"permission":"a","pattern":"*","action":"allow"},{"permission":"b","pattern":"*","action":"deny"},{"permission":"a","pattern":"x","action":"deny"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p Permission
			if err := json.Unmarshal([]byte(tt.text), &p); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p, tt.want) {
				t.Errorf("rules = %v, want %v", p, tt.want)
			}
			out, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tt.marshal {
				t.Errorf("marshal = %s, want %s", out, tt.marshal)
			}
			var back Permission
			if err := json.Unmarshal(out, &back); err != nil || !reflect.DeepEqual(back, p) {
				t.Errorf("round trip = %v, %v", back, err)
			}
		})
	}
}

func TestClosest(t *testing.T) {
	t.Parallel()
	keys := []string{"model", "small_model", "mcp", "permission", "instructions", "provider"}
	tests := []struct{ key, want string }{
		{"modle", "model"},
		{"Model", "model"},
		{"mcps", "mcp"},
		{"permissions", "permission"},
		{"instruction", "instructions"},
		{"providers", "provider"},
		{"xyzzy", ""},
	}
	for _, tt := range tests {
		if got := closest(tt.key, keys); got != tt.want {
			t.Errorf("closest(%q) = %q, want %q", tt.key, got, tt.want)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
