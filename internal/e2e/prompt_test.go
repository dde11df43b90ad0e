package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sessions lists the project's root sessions through the binary.
func (p *project) sessions() []string {
	p.t.Helper()
	out, stderr, code := p.run("session", "list", "--format", "json")
	if code != 0 {
		p.t.Fatalf("session list: exit status %d\n%s", code, stderr)
	}
	var list []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		p.t.Fatalf("session list: %v\n%s", err, out)
	}
	var ids []string
	for _, s := range list {
		ids = append(ids, s.ID)
	}
	return ids
}

// TestRunWithoutModel runs in a fresh home with no keys and no config: run
// fails before it writes a session, and says how to make a model available.
func TestRunWithoutModel(t *testing.T) {
	p := newProject(t, "", nil)
	if err := os.Remove(filepath.Join(p.dir, "opencode.jsonc")); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := p.run("run", "--format", "json", "hello")
	if code != 1 {
		t.Fatalf("exit status %d, want 1\n%s\n%s", code, stdout, stderr)
	}
	if stdout != "" {
		t.Errorf("run printed events of a session:\n%s", stdout)
	}
	for _, want := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "codeloop auth login",
		"codeloop.json", "opencode.json", "Ollama", "LM Studio"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the error does not mention %s:\n%s", want, stderr)
		}
	}
	if ids := p.sessions(); len(ids) != 0 {
		t.Errorf("sessions after the failed run: %v", ids)
	}
}

// TestRunRefusesBadAgent checks --agent before anything is written or
// sent: an unknown agent and a sub-agent are usage errors.
func TestRunRefusesBadAgent(t *testing.T) {
	tests := []struct{ agent, want string }{
		{"nosuch", "build"},     // the error lists the agents there are
		{"explore", "@explore"}, // a sub-agent is mentioned, not chosen
	}
	for _, tt := range tests {
		t.Run(tt.agent, func(t *testing.T) {
			p := newProject(t, "step\ntext Hi.\nfinish stop\n", nil)
			stdout, stderr, code := p.run("run", "--format", "json", "--agent", tt.agent, "hello")
			if code != 2 || stdout != "" || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit status %d, want 2\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			if n := len(p.model.Requests()); n != 0 {
				t.Errorf("%d requests reached the model", n)
			}
			if ids := p.sessions(); len(ids) != 0 {
				t.Errorf("sessions after the refused run: %v", ids)
			}
		})
	}
}
