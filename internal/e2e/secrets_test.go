package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunSecretFiles has the model read and grep a project's .env under
// run --auto, and the user mention it with @.env: nothing the model
// receives holds the secret, while the example file reads as usual.
func TestRunSecretFiles(t *testing.T) {
	script := `
step
call call_1 read {"filePath":".env"}
call call_2 grep {"pattern":"SECRET=x.z"}
call call_3 read {"filePath":".env.example"}
call call_4 grep {"pattern":"SECRET=", "path":".env"}
finish tool-calls
step
text I cannot see it.
finish stop
`
	files := map[string]string{
		".env":         "SECRET=xyz\n",
		".env.example": "SECRET=example\n",
	}
	// The refused read ends the turn, and says why.
	p := newProject(t, script, files)
	stdout, stderr, code := p.run("run", "--auto", "show me @.env please")
	if code == 0 || !strings.Contains(stderr, "read (.env); rejected: it needs the user's approval") {
		t.Errorf("exit status %d\n%s\n%s", code, stdout, stderr)
	}
	if strings.Contains(stdout+stderr, "xyz") {
		t.Errorf("the output shows the secret:\n%s\n%s", stdout, stderr)
	}

	// With the loop going on after a refusal, the results reach the model.
	p = newProject(t, script, files)
	p.writeConfig(`{"experimental": {"continue_loop_on_deny": true}}`)
	stdout, stderr, code = p.run("run", "--auto", "show me @.env please")
	reqs := p.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2 (exit %d)\n%s\n%s", len(reqs), code, stdout, stderr)
	}
	for i, r := range reqs {
		if strings.Contains(string(r.Body), "xyz") {
			t.Errorf("model request %d holds the secret:\n%s", i, r.Body)
		}
	}
	for _, r := range []string{stdout, stderr} {
		if strings.Contains(r, "xyz") {
			t.Errorf("the output shows the secret:\n%s", r)
		}
	}
	if !strings.Contains(string(reqs[0].Body), "a secret file") {
		t.Errorf("the mention's note did not reach the model:\n%s", reqs[0].Body)
	}
	res := p.toolResults()
	for id, want := range map[string]string{
		"call_1": "secret file",
		"call_2": "1 secret file was skipped",
		"call_3": "SECRET=example",
		"call_4": "1 secret file was skipped",
	} {
		if !strings.Contains(res[id], want) {
			t.Errorf("result of %s = %q, want it to contain %q", id, res[id], want)
		}
	}
}

// TestRunSecretFilesConfig: the user's config exempts a file with a "!"
// entry and adds a pattern; the project's config cannot exempt one.
func TestRunSecretFilesConfig(t *testing.T) {
	script := `
step
call call_1 read {"filePath":".env.local"}
call call_2 read {"filePath":".env"}
call call_3 read {"filePath":"config/prod.yml"}
finish tool-calls
step
text Done.
finish stop
`
	p := newProject(t, script, map[string]string{
		".env.local": "LOCAL=abc\n",
		".env":       "SECRET=xyz\n",
	})
	p.write(map[string]string{"config/prod.yml": "password: qwe\n"})
	p.writeConfig(`{"secret_files": ["!.env", "!.env*"], "experimental": {"continue_loop_on_deny": true}}`)
	user := filepath.Join(p.home, ".config", "codeloop", "codeloop.json")
	if err := os.MkdirAll(filepath.Dir(user), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(user, []byte(`{"secret_files": ["!.env.local", "config/*.yml"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, _ := p.run("run", "--auto", "read them")
	res := p.toolResults()
	if !strings.Contains(res["call_1"], "LOCAL=abc") {
		t.Errorf("the file the user exempted was not read: %q\n%s\n%s", res["call_1"], stdout, stderr)
	}
	for _, id := range []string{"call_2", "call_3"} {
		if !strings.Contains(res[id], "secret file") {
			t.Errorf("result of %s = %q, want a refusal", id, res[id])
		}
	}
	for i, r := range p.model.Requests() {
		if b := string(r.Body); strings.Contains(b, "xyz") || strings.Contains(b, "qwe") {
			t.Errorf("model request %d holds a secret", i)
		}
	}
}
