package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunAutoDeniesDisguisedCommands runs with --auto under a config that
// allows every command but touch: the model tries touch behind quotes and
// behind a variable. Neither runs, the model is told why, and the run ends
// normally with its answer.
func TestRunAutoDeniesDisguisedCommands(t *testing.T) {
	script := `
step
call call_1 bash {"command":"t''ouch marker; echo done"}
finish tool-calls
step
call call_2 bash {"command":"x=touch; $x marker2"}
finish tool-calls
step
text Both commands were refused.
finish stop
`
	p := newProject(t, script, nil)
	cfg := `{"permission": {"bash": {"*": "allow", "touch *": "deny"}}}`
	if err := os.WriteFile(filepath.Join(p.dir, "codeloop.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := p.run("run", "--auto", "create the markers")
	if code != 0 {
		t.Fatalf("exit status %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, f := range []string{"marker", "marker2"} {
		if _, err := os.Stat(filepath.Join(p.dir, f)); err == nil {
			t.Errorf("%s was created", f)
		}
	}
	if !strings.Contains(stdout, "Both commands were refused.") {
		t.Errorf("the answer is missing:\n%s", stdout)
	}
	reqs := p.model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3\nstderr:\n%s", len(reqs), stderr)
	}
	rule := `pattern: "touch *", action: deny`
	checks := []struct {
		req    int
		callID string
		want   []string
	}{
		// The quotes are removed before matching: the pattern names touch.
		{1, "call_1", []string{`for "touch marker" is denied`, rule}},
		// A program named by a variable matches every deny rule, and the
		// model is told why, not that the rule names the command.
		{2, "call_2", []string{"denied", "cannot be analysed", "$x is only known when the command runs"}},
	}
	for _, c := range checks {
		got, ok := toolResult(t, reqs[c.req].Body, c.callID)
		if !ok {
			t.Errorf("request %d has no result for %s", c.req+1, c.callID)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("the result of %s lacks %q: %s", c.callID, w, got)
			}
		}
	}
}

// toolResult is the text of the Chat Completions tool message for callID
// in a request body.
func toolResult(t *testing.T, body []byte, callID string) (string, bool) {
	t.Helper()
	var req struct {
		Messages []struct {
			Role       string          `json:"role"`
			ToolCallID string          `json:"tool_call_id"`
			Content    json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	for _, m := range req.Messages {
		if m.Role == "tool" && m.ToolCallID == callID {
			var s string
			if json.Unmarshal(m.Content, &s) != nil {
				s = string(m.Content)
			}
			return s, true
		}
	}
	return "", false
}
