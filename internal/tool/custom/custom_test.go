package custom

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/tool"
)

// install copies testdata scripts into a tools directory, executable.
func install(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// asker records permission requests and answers them with err.
type asker struct {
	reqs []permission.Request
	err  error
}

func (a *asker) Ask(_ context.Context, r permission.Request) error {
	a.reqs = append(a.reqs, r)
	return a.err
}

func loadAll(t *testing.T, dir string, opts Options) map[string]*Tool {
	t.Helper()
	tools, errs := Load(context.Background(), Find([]string{dir}), opts)
	for _, err := range errs {
		t.Logf("load: %v", err)
	}
	out := map[string]*Tool{}
	for _, tl := range tools {
		out[tl.ID()] = tl
	}
	return out
}

func TestLoad(t *testing.T) {
	dir := install(t, "wordcount.py", "greet.sh", "noschema.sh")
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("not executable"), 0o644); err != nil {
		t.Fatal(err)
	}
	tools, errs := Load(context.Background(), Find([]string{dir, filepath.Join(dir, "missing")}), Options{})
	if len(tools) != 2 || tools[0].ID() != "greet" || tools[1].ID() != "wordcount" {
		t.Fatalf("tools = %v", tools)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "noschema.sh: --schema exited with status 64: usage: noschema FILE") {
		t.Errorf("errors = %v", errs)
	}
	wc := tools[1]
	if wc.Description() != "Count the words of a text." {
		t.Errorf("description = %q", wc.Description())
	}
	var schema map[string]any
	if err := json.Unmarshal(wc.Schema(), &schema); err != nil || schema["type"] != "object" ||
		schema["properties"].(map[string]any)["text"] == nil {
		t.Errorf("schema = %s", wc.Schema())
	}
}

func TestRun(t *testing.T) {
	dir := install(t, "wordcount.py", "greet.sh", "crash.sh", "slow.sh")
	work := t.TempDir()
	tools := loadAll(t, dir, Options{Truncator: &tool.Truncator{Dir: t.TempDir()}})
	tests := []struct {
		tool, input string
		want        string // output, or the error's text
		wantErr     bool
	}{
		{"wordcount", `{"text": "one two three"}`, "3 words\n", false},
		{"greet", `{"name": "Ada"}`, "hello, Ada, from " + work + "\n", false},
		{"crash", `{}`, "the crash tool failed with exit status 3:\ndatabase is locked", true},
		{"slow", `{}`, "the slow tool did not finish within 300ms and was stopped", true},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			a := &asker{}
			res, err := tools[tt.tool].Run(context.Background(), &tool.Call{Tool: tt.tool, Input: json.RawMessage(tt.input),
				Dir: work, Worktree: work, Asker: a})
			if tt.wantErr {
				if err == nil || err.Error() != tt.want {
					t.Fatalf("err = %v, want %q", err, tt.want)
				}
			} else if err != nil || res.Output != tt.want {
				t.Fatalf("res = %+v, err = %v, want %q", res, err, tt.want)
			}
			if len(a.reqs) != 1 || a.reqs[0].Permission != tt.tool {
				t.Errorf("permission requests = %+v", a.reqs)
			}
		})
	}
}

func TestRunRefused(t *testing.T) {
	dir := install(t, "greet.sh")
	tools := loadAll(t, dir, Options{})
	a := &asker{err: &permission.RejectedError{Permission: "greet"}}
	_, err := tools["greet"].Run(context.Background(), &tool.Call{Input: json.RawMessage(`{"name":"x"}`), Dir: t.TempDir(), Asker: a})
	var rej *permission.RejectedError
	if !errorsAs(err, &rej) {
		t.Fatalf("err = %v", err)
	}
}

func TestRunTruncates(t *testing.T) {
	dir := t.TempDir()
	script := "#!/bin/sh\n[ \"$1\" = --schema ] && { echo '{\"description\":\"many lines\"}'; exit 0; }\nseq 1 5000\n"
	if err := os.WriteFile(filepath.Join(dir, "lines"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	tools := loadAll(t, dir, Options{Truncator: &tool.Truncator{Dir: t.TempDir(), Limits: tool.Limits{MaxLines: 10}}})
	res, err := tools["lines"].Run(context.Background(), &tool.Call{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if res.Metadata["truncated"] != true || strings.Contains(res.Output, "\n4999\n") {
		t.Errorf("output not truncated: %d bytes, metadata %v", len(res.Output), res.Metadata)
	}
}
