package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenCodeJSToolNeedsTrust: a JavaScript tool file in the project's
// .opencode/tool, written as OpenCode's documentation writes them, is held
// back and listed by trust --check until the project is trusted; then it
// is offered with its schema and runs through the bridge. The user's own
// (~/.config/opencode/tool) is offered at once.
func TestOpenCodeJSToolNeedsTrust(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH")
	}
	hi := "step\ntext hi.\nfinish stop input=10 output=2\n"
	call := "step\ncall call_1 greet {\"name\":\"Ada\"}\nfinish tool-calls input=100 output=10\nstep\ntext greeted.\nfinish stop input=200 output=5\n"
	p := newProject(t, hi+call, nil)
	src, err := os.ReadFile(filepath.Join("..", "tool", "custom", "testdata", "opencode", "greet.js"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(p.dir, ".opencode", "tool", "greet.js"), string(src))
	writeFile(t, filepath.Join(p.home, ".config", "opencode", "tool", "hello.js"), string(src))
	writeFile(t, filepath.Join(p.home, ".config", "codeloop", "codeloop.json"), `{"permission": {"greet": "allow"}}`)

	_, stderr := p.mustRun("run", "hi")
	if strings.Contains(p.requestText(0), `"name":"greet"`) {
		t.Error("an untrusted project's JavaScript tool was offered")
	}
	if !strings.Contains(p.requestText(0), `"name":"hello"`) {
		t.Error("the user's own JavaScript tool was not offered")
	}
	if !strings.Contains(stderr, "skipped the project's") {
		t.Errorf("the user was not told what was skipped:\n%s", stderr)
	}
	check, _, code := p.run("trust", "--check")
	if code != 1 || !strings.Contains(check, "tool greet.js: "+filepath.Join(p.dir, ".opencode", "tool", "greet.js")) {
		t.Errorf("trust --check: exit %d\n%s", code, check)
	}

	p.mustRun("trust")
	p.mustRun("run", "greet Ada")
	first := p.requestText(1)
	for _, want := range []string{`"name":"greet"`, `Greet someone by name.`, `who to greet`, `"name":"greet_count"`} {
		if !strings.Contains(first, want) {
			t.Errorf("the tools offered lack %s:\n%s", want, first)
		}
	}
	if body := p.requestText(2); !strings.Contains(body, "hello, Ada.") {
		t.Errorf("the tool's result did not reach the model:\n%s", body)
	}
}
