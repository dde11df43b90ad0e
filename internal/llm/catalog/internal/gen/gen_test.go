package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestGeneratedIsCurrent regenerates the catalog from the committed
// snapshot and checks it matches the committed output byte for byte.
func TestGeneratedIsCurrent(t *testing.T) {
	out := filepath.Join(t.TempDir(), "catalog.pack")
	if err := run("../../source/models-dev-2026-07-02.tar.gz", out); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../../catalog.pack")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("catalog.pack is out of date: run go generate ./internal/llm/catalog")
	}
}

func TestParseTOML(t *testing.T) {
	src := `# comment
name = "Model \"X\"" # trailing
count = 1_024
price = 0.125
neg = -3
on = true
list = ["a", 'b',
  "c", # inside
]
inline = { a = 1, b = { c = "d" } }
dotted.key = "v"
opts = [{ type = "effort", values = ["low", "high"] }]

[limit]
context = 200_000

[[cost.tiers]]
tier = { size = 200_000 }
input = 2.5

[[cost.tiers]]
tier = { type = "context", size = 272_000 }
input = 3

[provider]
"quoted key" = "x"
`
	got, err := parseTOML(src)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"name": `Model "X"`, "count": 1024.0, "price": 0.125, "neg": -3.0, "on": true,
		"list":   []any{"a", "b", "c"},
		"inline": map[string]any{"a": 1.0, "b": map[string]any{"c": "d"}},
		"dotted": map[string]any{"key": "v"},
		"opts":   []any{map[string]any{"type": "effort", "values": []any{"low", "high"}}},
		"limit":  map[string]any{"context": 200000.0},
		"cost": map[string]any{"tiers": []any{
			map[string]any{"tier": map[string]any{"size": 200000.0}, "input": 2.5},
			map[string]any{"tier": map[string]any{"type": "context", "size": 272000.0}, "input": 3.0},
		}},
		"provider": map[string]any{"quoted key": "x"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseTOML =\n%#v\nwant\n%#v", got, want)
	}
}

func TestParseTOMLErrors(t *testing.T) {
	for _, src := range []string{
		`a = `,
		`a = "unterminated`,
		`a = 1` + "\n" + `a = 2`,
		`a = """multi"""`,
		`a = 1979-05-27`,
		`[a`,
		`a = [1, 2`,
		`a = { b = 1 `,
		`a = 1 b = 2`,
	} {
		if _, err := parseTOML(src); err == nil {
			t.Errorf("parseTOML(%q) succeeded", src)
		}
	}
}

func TestResolveBaseModel(t *testing.T) {
	files := map[string]string{
		"models/lab/m.toml":                 "name = \"M\"\nreasoning = true\n[limit]\ncontext = 100\ninput = 90\noutput = 10\n",
		"providers/p/provider.toml":         "name = \"P\"\nenv = [\"P_KEY\"]\nnpm = \"@ai-sdk/openai-compatible\"\napi = \"https://p\"\n",
		"providers/p/models/m.toml":         "base_model = \"lab/m\"\nbase_model_omit = [\"limit.input\"]\n[cost]\ninput = 1\noutput = 2\n",
		"providers/p/models/sub/other.toml": "name = \"O\"\n[limit]\ncontext = 5\noutput = 1\n",
		"providers/p/models/ignored.md":     "not toml",
		"providers/q/provider.toml":         "name = \"Q\"\nenv = [\"Q_KEY\"]\nnpm = \"@ai-sdk/openai-compatible\"\n",
		"providers/q/models/m.toml":         "base_model = \"lab/m\"\n",
	}
	cat, err := build(files)
	if err != nil {
		t.Fatal(err)
	}
	models := cat["p"]["models"].(map[string]any)
	m := models["m"].(map[string]any)
	if m["name"] != "M" || m["reasoning"] != true || m["id"] != "m" {
		t.Errorf("base fields not inherited: %v", m)
	}
	if l := m["limit"].(map[string]any); l["input"] != nil || l["context"] != 100.0 {
		t.Errorf("limit = %v, want input omitted", l)
	}
	if _, ok := models["sub/other"]; !ok {
		t.Errorf("nested model id missing: %v", models)
	}
	// Omitting a field for one provider must not touch the shared base.
	q := cat["q"]["models"].(map[string]any)["m"].(map[string]any)
	if l := q["limit"].(map[string]any); l["input"] != 90.0 {
		t.Errorf("q limit = %v, want input 90 from the base", l)
	}
}
