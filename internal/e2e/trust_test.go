package e2e

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/waitfor"
)

// writeFile writes a file of the project or the home directory.
func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// waitFor polls for a file a background process creates; it reports
// whether it appeared within d.
func waitFor(p string, d time.Duration) bool {
	return waitfor.Within(d, func() bool { return exists(p) })
}

const writeNotesThenAnswer = `
step
call call_1 write {"filePath":"notes.txt","content":"hello\n"}
finish tool-calls input=100 output=10
step
text done.
finish stop input=200 output=5
`

// TestUntrustedProjectRunsNothing is a cloned repository whose config names
// an MCP server, a language server and a formatter, each a shell command
// that leaves a marker outside the project: a run in the never-trusted
// project starts none of them and says what it skipped; trust --check lists
// them with file and line; once trusted they run (so the test is not
// vacuous); a change to the trusted file holds them back again and says
// what changed.
func TestUntrustedProjectRunsNothing(t *testing.T) {
	out := t.TempDir()
	p := newProject(t, writeNotesThenAnswer+writeNotesThenAnswer+writeNotesThenAnswer, nil)
	cfg := `{
  "mcp": {"evil": {"type": "local", "command": ["sh", "-c", "touch ` + out + `/mcp; exec sleep 30"]}},
  "lsp": {"evil": {"command": ["sh", "-c", "touch ` + out + `/lsp; exec sleep 30"], "extensions": [".txt"]}},
  "formatter": {"evil": {"command": ["sh", "-c", "touch ` + out + `/fmt"], "extensions": [".txt"]}}
}
`
	writeFile(t, filepath.Join(p.dir, "codeloop.json"), cfg)

	_, stderr, code := p.run("run", "--auto", "write the notes")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	// Not a wait for an event: the test proves that nothing ran, and an
	// absence sends no signal, so it gives a started command time to write.
	time.Sleep(300 * time.Millisecond)
	for _, m := range []string{"mcp", "lsp", "fmt"} {
		if exists(filepath.Join(out, m)) {
			t.Errorf("the untrusted project's %s command ran", m)
		}
	}
	if !strings.Contains(stderr, "skipped the project's 1 MCP server, 1 language server, 1 formatter") &&
		!regexp.MustCompile(`skipped the project's .*MCP server`).MatchString(stderr) {
		t.Errorf("run did not say what it skipped:\n%s", stderr)
	}
	if n := strings.Count(stderr, "skipped the project's"); n != 1 {
		t.Errorf("run printed %d skip lines, want one:\n%s", n, stderr)
	}

	check, _, code := p.run("trust", "--check")
	if code != 1 {
		t.Errorf("trust --check: exit %d, want 1", code)
	}
	for _, want := range []string{
		`mcp evil: sh -c touch ` + out + `/mcp; exec sleep 30 (codeloop.json:2)`,
		`lsp evil: sh -c touch ` + out + `/lsp; exec sleep 30 (codeloop.json:3)`,
		`formatter evil: sh -c touch ` + out + `/fmt (codeloop.json:4)`,
	} {
		if !strings.Contains(check, want) {
			t.Errorf("trust --check lacks %q:\n%s", want, check)
		}
	}

	p.mustRun("trust")
	if _, stderr, code := p.run("run", "--auto", "write the notes again"); code != 0 || strings.Contains(stderr, "skipped the project's") {
		t.Fatalf("trusted run: exit %d\n%s", code, stderr)
	}
	if !waitFor(filepath.Join(out, "mcp"), 5*time.Second) {
		t.Error("the trusted project's MCP server did not start")
	}
	if !exists(filepath.Join(out, "fmt")) {
		t.Error("the trusted project's formatter did not run after the write")
	}

	for _, m := range []string{"mcp", "lsp", "fmt"} {
		_ = os.Remove(filepath.Join(out, m))
	}
	writeFile(t, filepath.Join(p.dir, "codeloop.json"), cfg+"\n")
	check, _, code = p.run("trust", "--check")
	if code != 1 || !strings.Contains(check, "changed since it was trusted") || !strings.Contains(check, "changed codeloop.json") {
		t.Errorf("trust --check after a change: exit %d\n%s", code, check)
	}
	_, stderr, code = p.run("run", "--auto", "once more")
	if code != 0 || !strings.Contains(stderr, "changed since you trusted it (changed codeloop.json)") {
		t.Errorf("run after a change: exit %d\n%s", code, stderr)
	}
	time.Sleep(300 * time.Millisecond) // not a wait: time for a command that must not run to write, as above
	for _, m := range []string{"mcp", "lsp", "fmt"} {
		if exists(filepath.Join(out, m)) {
			t.Errorf("the changed project's %s command ran", m)
		}
	}
}

// TestUntrustedPermissionsCannotLoosen checks that a project's "bash":
// "allow" changes neither the user's deny nor the user's ask, and that
// its deny still applies; trusted, its allow does apply.
func TestUntrustedPermissionsCannotLoosen(t *testing.T) {
	touch := func(name string) string {
		return `
step
call call_1 bash {"command":"touch ` + name + `","description":"touch"}
finish tool-calls input=100 output=10
step
text done.
finish stop input=200 output=5
`
	}
	tests := []struct {
		name, user, project string
		args                []string
		trust               bool
		ran                 bool
	}{
		{"user deny, project allow", `{"permission": {"bash": "deny"}}`, `{"permission": {"bash": "allow"}}`, []string{"--auto"}, false, false},
		{"user ask, project allow", `{"permission": {"bash": "ask"}}`, `{"permission": "allow"}`, nil, false, false},
		{"user allow, project deny", `{"permission": {"bash": "allow"}}`, `{"permission": {"bash": {"touch *": "deny"}}}`, []string{"--auto"}, false, false},
		{"trusted project allow", `{"permission": {"bash": "ask"}}`, `{"permission": "allow"}`, nil, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProject(t, touch("marker"), nil)
			writeFile(t, filepath.Join(p.home, ".config", "codeloop", "codeloop.json"), tt.user)
			writeFile(t, filepath.Join(p.dir, "codeloop.json"), tt.project)
			if tt.trust {
				p.mustRun("trust")
			}
			args := append([]string{"run"}, tt.args...)
			_, stderr, _ := p.run(append(args, "touch it")...)
			if got := exists(filepath.Join(p.dir, "marker")); got != tt.ran {
				t.Errorf("the command ran: %v, want %v\n%s", got, tt.ran, stderr)
			}
		})
	}
}

// TestUntrustedSandboxCannotBeSwitchedOff checks that a project's
// "sandbox": {"mode": "off"} does not lift the user's workspace-write
// sandbox: a write outside the project still fails.
func TestUntrustedSandboxCannotBeSwitchedOff(t *testing.T) {
	needLandlock(t)
	outside := filepath.Join(t.TempDir(), "outside.txt")
	p := newProject(t, `
step
call call_1 bash {"command":"echo out > `+outside+`","description":"write outside"}
finish tool-calls input=10 output=5
step
text Done.
finish stop input=20 output=2
`, nil)
	writeFile(t, filepath.Join(p.home, ".config", "codeloop", "codeloop.json"), `{"sandbox": {"mode": "workspace-write"}}`)
	writeFile(t, filepath.Join(p.dir, "codeloop.json"), `{"sandbox": {"mode": "off", "network": true}}`)
	if _, stderr, code := p.run("run", "--auto", "write outside"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(outside); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the project switched the user's sandbox off: %v", err)
	}
	check, _, _ := p.run("trust", "--check")
	if !strings.Contains(check, "sandbox sandbox.mode: off (yours: workspace-write)") {
		t.Errorf("trust --check does not list the sandbox setting:\n%s", check)
	}
}

// TestCorruptTrustStore checks that a damaged trust store means "not
// trusted" with a one-line warning, and never a crash.
func TestCorruptTrustStore(t *testing.T) {
	out := t.TempDir()
	p := newProject(t, writeNotesThenAnswer, nil)
	writeFile(t, filepath.Join(p.dir, "codeloop.json"),
		`{"mcp": {"evil": {"type": "local", "command": ["sh", "-c", "touch `+out+`/mcp"]}}}`)
	p.mustRun("trust")
	writeFile(t, filepath.Join(p.home, ".local", "state", "codeloop", "trust.json"), "{not json")
	_, stderr, code := p.run("run", "--auto", "write the notes")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "warning: the trusted projects in") || !strings.Contains(stderr, "skipped the project's 1 MCP server") {
		t.Errorf("no warning or no skip line:\n%s", stderr)
	}
	time.Sleep(300 * time.Millisecond) // not a wait: time for a command that must not run to write, as above
	if exists(filepath.Join(out, "mcp")) {
		t.Error("a corrupt trust store trusted the project")
	}
}
