package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds arbitrary text through substitution, JSONC parsing,
// validation and decoding. It must never panic; an error must be an *Error;
// and a config that parses must marshal to text that parses again.
func FuzzParse(f *testing.F) {
	seeds := []string{
		`{}`,
		`{"model": "{env:M}", "small_model": "{file:a.txt}",}`,
		"{\n// {file:missing}\n\"share\": \"auto\" /* c */}",
		`{"permission": {"bash": {"*": "ask", "git *": "allow"}, "edit": "deny"}}`,
		`{"permission": "allow", "agent": {"a": {"x": 1, "permission": "deny"}}}`,
		`{"mcp": {"a": {"type": "remote", "url": "u", "oauth": false}, "b": {"enabled": false}}}`,
		`{"provider": {"p": {"options": {"timeout": false, "k": [1]}, "models": {"m": {"interleaved": true}}}}}`,
		`{"plugin": ["a", ["b@1", {"x": 1}]], "autoupdate": "notify", "lsp": true}`,
		`{"modle": 1}`,
		`{"model": "a"`,
		`[{env:X}]`,
	}
	if data, err := os.ReadFile(filepath.Join("testdata", "opencode.jsonc")); err == nil {
		seeds = append(seeds, string(data))
	}
	for _, s := range seeds {
		f.Add(s)
	}
	dir := f.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("quoted \" and \\ and\nnewline"), 0o644); err != nil {
		f.Fatal(err)
	}
	env := fakeEnv(map[string]string{"M": "openai/gpt-5", "X": `"x", {"y": 1}`})
	f.Fuzz(func(t *testing.T, text string) {
		cfg, err := Parse([]byte(text), ParseOptions{Name: "f.jsonc", Dir: dir, Home: dir, Getenv: env})
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T %v is not an *Error", err, err)
			}
			return
		}
		out, err := json.Marshal(cfg)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		if _, err := Parse(out, ParseOptions{Name: "again"}); err != nil {
			t.Fatalf("marshalled config does not parse: %v\n%s", err, out)
		}
	})
}
