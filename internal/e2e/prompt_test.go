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

// TestRunMentionsFile attaches a file mentioned in the message, as the read
// tool shows it, and lists a mentioned directory.
func TestRunMentionsFile(t *testing.T) {
	p := newProject(t, "step\ntext It is a hello program.\nfinish stop\n", map[string]string{
		"main.go": "package main\n\nfunc main() { println(\"hello\") }\n",
	})
	if err := os.MkdirAll(filepath.Join(p.dir, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.dir, "docs", "guide.md"), []byte("# Guide\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := p.run("run", "look at @main.go and @docs, not at @nowhere.go")
	if code != 0 {
		t.Fatalf("exit status %d\n%s\n%s", code, stdout, stderr)
	}
	body := string(p.model.Requests()[0].Body)
	for _, want := range []string{
		`Called the Read tool with the following input: {\"filePath\":\"` + filepath.Join(p.dir, "main.go"),
		`3: func main() { println(\"hello\") }`,
		`<type>directory</type>`, `guide.md`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the request lacks %s:\n%s", want, body)
		}
	}
	if strings.Contains(body, "nowhere.go\\\"") {
		t.Errorf("a missing file was attached: %s", body)
	}
	// The stored message holds the file parts, with where they were mentioned.
	exp, _, _ := p.run("export")
	if !strings.Contains(exp, `"value": "@main.go"`) && !strings.Contains(exp, `"value":"@main.go"`) {
		t.Errorf("the export lacks the file part's source:\n%s", exp)
	}
}

// TestRunMentionsAgent mentions a sub-agent: the model is told to hand the
// request to it, calls the task tool, and the child session runs with the
// file its prompt mentions attached.
func TestRunMentionsAgent(t *testing.T) {
	script := `
step
call call_1 task {"description":"find tests","prompt":"List the test files, starting with @a_test.go.","subagent_type":"explore"}
finish tool-calls
step
text There is one: a_test.go.
finish stop
step
text Explore found a_test.go.
finish stop
`
	p := newProject(t, script, map[string]string{"a_test.go": "package a\n"})
	stdout, stderr, code := p.run("run", "@explore which tests are there?")
	if code != 0 {
		t.Fatalf("exit status %d\n%s\n%s", code, stdout, stderr)
	}
	reqs := p.model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3\n%s\n%s", len(reqs), stdout, stderr)
	}
	if first := string(reqs[0].Body); !strings.Contains(first, `call the task tool with subagent_type \"explore\"`) {
		t.Errorf("the first request lacks the hand-over instruction: %s", first)
	}
	// The sub-agent's prompt attaches the file it mentions.
	if child := string(reqs[1].Body); !strings.Contains(child, "1: package a") {
		t.Errorf("the sub-agent's request lacks the mentioned file: %s", child)
	}
	if !strings.Contains(string(reqs[2].Body), "There is one: a_test.go.") {
		t.Errorf("the sub-agent's answer did not come back: %s", reqs[2].Body)
	}
	if !strings.Contains(stdout, "Explore found a_test.go.") {
		t.Errorf("output: %s", stdout)
	}
}
