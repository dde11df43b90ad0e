package skill

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/tool"
)

// asker records the requests it is asked and answers with err.
type asker struct {
	reqs []permission.Request
	err  error
}

func (a *asker) Ask(_ context.Context, req permission.Request) error {
	a.reqs = append(a.reqs, req)
	return a.err
}

func call(name string, a permission.Asker) *tool.Call {
	input, _ := json.Marshal(map[string]string{"name": name})
	return &tool.Call{ID: "call_1", Tool: ToolID, Input: input, SessionID: "ses_1", MessageID: "msg_1", Asker: a}
}

func TestToolRun(t *testing.T) {
	var logBuf bytes.Buffer
	opts, root := fixture(t, &logBuf)
	tl := NewTool(Discover(opts))
	a := &asker{}
	res, err := tl.Run(context.Background(), call("deploy", a))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "repo", ".claude", "skills", "deploy")
	want := strings.Join([]string{
		`<skill_content name="deploy">`,
		"# Skill: deploy",
		"",
		"# Deploy",
		"",
		"Run scripts/run.sh, then read reference.md.",
		"",
		"Base directory of this skill: file://" + filepath.ToSlash(dir),
		"Paths the skill mentions (scripts/, references/ and the like) are relative to that directory.",
		"",
		"<skill_files>",
		"<file>" + filepath.Join(dir, "reference.md") + "</file>",
		"<file>" + filepath.Join(dir, "scripts", "run.sh") + "</file>",
		"</skill_files>",
		"</skill_content>",
	}, "\n")
	if res.Output != want {
		t.Errorf("output:\n%s\nwant:\n%s", res.Output, want)
	}
	if len(a.reqs) != 1 {
		t.Fatalf("asked %d times, want once", len(a.reqs))
	}
	req := a.reqs[0]
	if req.Permission != "skill" || !slices.Equal(req.Patterns, []string{"deploy"}) || !slices.Equal(req.Always, []string{"deploy"}) {
		t.Errorf("request = %+v", req)
	}
	if req.SessionID != "ses_1" || req.Tool == nil || req.Tool.CallID != "call_1" {
		t.Errorf("request not tied to the call: %+v", req)
	}
}

func TestToolRunErrors(t *testing.T) {
	var logBuf bytes.Buffer
	opts, _ := fixture(t, &logBuf)
	tl := NewTool(Discover(opts))
	denied := &permission.DeniedError{Permission: "skill", Pattern: "deploy"}
	tests := []struct {
		name     string
		skill    string
		askErr   error
		notFound bool
		asked    bool
		wantErr  error
	}{
		{name: "unknown", skill: "nope", notFound: true},
		{name: "user only", skill: "useronly", notFound: true},
		{name: "denied", skill: "deploy", askErr: denied, asked: true, wantErr: denied},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &asker{err: tt.askErr}
			_, err := tl.Run(context.Background(), call(tt.skill, a))
			if err == nil {
				t.Fatal("no error")
			}
			var nf *NotFoundError
			if errors.As(err, &nf) != tt.notFound {
				t.Errorf("err = %v, not found %v", err, tt.notFound)
			}
			if tt.notFound && (slices.Contains(nf.Available, "useronly") || !slices.Contains(nf.Available, "deploy")) {
				t.Errorf("available list = %v", nf.Available)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			}
			if (len(a.reqs) > 0) != tt.asked {
				t.Errorf("asked = %v, want %v", len(a.reqs) > 0, tt.asked)
			}
		})
	}
	if _, err := tl.Run(context.Background(), &tool.Call{Input: json.RawMessage(`"deploy"`)}); err == nil {
		t.Error("a non-object input was accepted")
	}
}

func TestToolListsAtMostTenFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "big")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 15 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.md", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	loc := filepath.Join(dir, FileName)
	if err := os.WriteFile(loc, []byte("---\nname: big\ndescription: Many files\n---\nBody"), 0o644); err != nil {
		t.Fatal(err)
	}
	sk, err := Load(loc)
	if err != nil {
		t.Fatal(err)
	}
	res, err := NewTool(NewSet(sk)).Run(context.Background(), call("big", nil))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(res.Output, "<file>"); n != 10 {
		t.Errorf("%d files listed, want 10", n)
	}
	if strings.Contains(res.Output, FileName+"</file>") {
		t.Error("SKILL.md itself is listed")
	}
	if !strings.Contains(res.Output, "sample") {
		t.Error("a capped list does not say it is a sample")
	}
}

func TestToolDescription(t *testing.T) {
	var logBuf bytes.Buffer
	opts, _ := fixture(t, &logBuf)
	desc := NewTool(Discover(opts)).Description()
	for _, name := range []string{"deploy", "lint", "nested", "colon"} {
		if !strings.Contains(desc, "<name>"+name+"</name>") {
			t.Errorf("description does not list %s", name)
		}
	}
	for _, name := range []string{"useronly", "empty"} {
		if strings.Contains(desc, "<name>"+name+"</name>") {
			t.Errorf("description lists %s", name)
		}
	}
	if !strings.Contains(NewTool(NewSet()).Description(), "No skills") {
		t.Error("an empty set does not say so")
	}
	var schema map[string]any
	if err := json.Unmarshal(NewTool(NewSet()).Schema(), &schema); err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
}

func TestListingEscapes(t *testing.T) {
	got := Listing([]Skill{{Name: "a", Description: `Use <b> & "c"`, Location: "/x y/SKILL.md"}})
	if !strings.Contains(got, "<description>Use &lt;b&gt; &amp; &quot;c&quot;</description>") ||
		!strings.Contains(got, "<location>file:///x%20y/SKILL.md</location>") {
		t.Errorf("listing not escaped:\n%s", got)
	}
}
