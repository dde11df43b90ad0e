package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUntrustedInstructionsStayInProject is a cloned repository whose
// CLAUDE.md imports a file of the user's home and /etc/passwd, and whose
// AGENTS.md is a symbolic link to a file of the home: before trust, no
// byte of those files reaches the model, while the project's own
// instructions do; once trusted, the import applies as Claude Code's
// would.
func TestUntrustedInstructionsStayInProject(t *testing.T) {
	script := "step\ntext done.\nfinish stop input=10 output=2\n"
	p := newProject(t, strings.Repeat(script, 3), nil)
	writeFile(t, filepath.Join(p.home, "private", "notes.md"), "HOME-SECRET-4711\n")
	writeFile(t, filepath.Join(p.home, "private", "agents.md"), "HOME-AGENTS-0815\n")
	writeFile(t, filepath.Join(p.dir, "CLAUDE.md"), "PROJECT-RULES-1234\n@~/private/notes.md\n@/etc/passwd\n@docs/style.md\n")
	writeFile(t, filepath.Join(p.dir, "docs", "style.md"), "PROJECT-STYLE-5678\n")
	lastBody := func(prompt string) string {
		t.Helper()
		if _, stderr, code := p.run("run", prompt); code != 0 {
			t.Fatalf("run: exit %d\n%s", code, stderr)
		}
		reqs := p.model.Requests()
		if len(reqs) == 0 {
			t.Fatal("the model got no request")
		}
		return string(reqs[len(reqs)-1].Body)
	}
	check := func(body string, leaks, owns []string) {
		t.Helper()
		for _, leak := range leaks {
			if strings.Contains(body, leak) {
				t.Errorf("the untrusted project sent %q from outside it to the model", leak)
			}
		}
		for _, own := range owns {
			if !strings.Contains(body, own) {
				t.Errorf("the instruction %q did not reach the model", own)
			}
		}
	}

	check(lastBody("hello"), []string{"HOME-SECRET-4711", "root:x:0:0"}, []string{"PROJECT-RULES-1234", "PROJECT-STYLE-5678"})

	if err := os.Symlink(filepath.Join(p.home, "private", "agents.md"), filepath.Join(p.dir, "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	check(lastBody("hello again"), []string{"HOME-AGENTS-0815"}, nil)

	p.trust()
	check(lastBody("trusted"), nil, []string{"HOME-AGENTS-0815"})
}

// TestInstructionImportsSkipSecretFiles is a project whose CLAUDE.md
// imports its .env (which the user fills in after cloning) and an SSH key
// of the user's: even trusted, neither secret file reaches the model,
// while the project's other imports do.
func TestInstructionImportsSkipSecretFiles(t *testing.T) {
	script := "step\ntext done.\nfinish stop input=10 output=2\n"
	p := newProject(t, script, nil)
	writeFile(t, filepath.Join(p.home, ".ssh", "id_rsa"), "HOME-SSH-KEY-9999\n")
	writeFile(t, filepath.Join(p.dir, ".env"), "API_KEY=PROJECT-ENV-2468\n")
	writeFile(t, filepath.Join(p.dir, "docs", "style.md"), "PROJECT-STYLE-5678\n")
	writeFile(t, filepath.Join(p.dir, "CLAUDE.md"), "PROJECT-RULES-1234\n@.env\n@~/.ssh/id_rsa\n@docs/style.md\n")
	p.trust()
	if _, stderr, code := p.run("run", "hello"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	reqs := p.model.Requests()
	if len(reqs) == 0 {
		t.Fatal("the model got no request")
	}
	body := string(reqs[len(reqs)-1].Body)
	for _, leak := range []string{"PROJECT-ENV-2468", "HOME-SSH-KEY-9999"} {
		if strings.Contains(body, leak) {
			t.Errorf("an import sent the secret file's %q to the model", leak)
		}
	}
	for _, own := range []string{"PROJECT-RULES-1234", "PROJECT-STYLE-5678"} {
		if !strings.Contains(body, own) {
			t.Errorf("the instruction %q did not reach the model", own)
		}
	}
}
