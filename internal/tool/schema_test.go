package tool

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestSchemaGolden pins every built-in tool's JSON Schema, so a change to
// what the model sees shows up in review.
func TestSchemaGolden(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	env.Search = NewSearch("", "a-search-key", nil) // websearch and codesearch too
	tools := Builtins(env)
	seen := map[string]bool{}
	for _, tl := range tools {
		t.Run(tl.ID(), func(t *testing.T) {
			var buf bytes.Buffer
			if err := json.Indent(&buf, tl.Schema(), "", "  "); err != nil {
				t.Fatal(err)
			}
			buf.WriteByte('\n')
			path := filepath.Join("testdata", "schema", tl.ID()+".json")
			seen[filepath.Base(path)] = true
			if *update {
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -run TestSchemaGolden -update to create it)", err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("schema of %s changed (run with -update if intended):\n got: %s\nwant: %s", tl.ID(), buf.Bytes(), want)
			}
		})
	}
	entries, _ := os.ReadDir(filepath.Join("testdata", "schema"))
	for _, e := range entries {
		if !seen[e.Name()] && !*update {
			t.Errorf("golden file %s belongs to no tool", e.Name())
		}
	}
}
