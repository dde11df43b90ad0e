package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestPermissionBypassForms runs, with --auto under a config that denies
// git push and touch and allows npm, the forms that once stepped around
// such rules: git's own options before push, npx -c and npm exec running
// touch, and a comment ending in a backslash that hides the next line
// from the analysis. None runs: the remote receives nothing and no marker
// is made. The model is told the deny rule for the first ones, and, for
// the comment, that the command cannot be analysed, without a rule named
// as the cause. Ordinary git and npm commands run.
func TestPermissionBypassForms(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("runs bash commands")
	}
	for _, prog := range []string{"bash", "git"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("%s is not installed", prog)
		}
	}
	const (
		push         = `pattern: "git push *", action: deny`
		touch        = `pattern: "touch *", action: deny`
		unanalysable = "cannot be analysed"
	)
	type call struct {
		name, cmd string
		file      string   // a file the command must not make
		want      []string // in the tool result
		not       []string // not in the tool result
	}
	refused := []call{
		{"no pager", "git --no-pager push origin HEAD:refs/heads/a", "", []string{push, `"git push origin HEAD:refs/heads/a"`}, nil},
		{"directory", "git -C . push origin HEAD:refs/heads/b", "", []string{push}, nil},
		{"config and git dir", "git -c user.name=x --git-dir=.git -P push origin HEAD:refs/heads/c", "", []string{push}, nil},
		{"npx -c", "npx -c 'touch m_npx'", "m_npx", []string{touch, `"touch m_npx"`}, nil},
		{"npm exec --call", "npm exec --call='touch m_npm'", "m_npm", []string{touch}, nil},
		{"npm exec program", "npm exec -- touch m_exec", "m_exec", []string{touch}, nil},
		{"comment backslash", "echo ok # note \\\ntouch m_comment", "m_comment",
			[]string{unanalysable, "a comment ending in a backslash", "remove the backslash"},
			[]string{"git push *", "touch *", "denied by the rule"}},
		{"comment backslash push", "echo ok # note \\\ngit push origin HEAD:refs/heads/d", "",
			[]string{unanalysable, "a comment ending in a backslash"}, []string{"git push *", "denied by the rule"}},
	}
	allowed := []call{
		{"git log", "git --no-pager log -1 --format=%s > o_git", "o_git", nil, nil},
	}
	if _, err := exec.LookPath("npm"); err == nil {
		allowed = append(allowed, call{"npm", "npm --version > o_npm", "o_npm", nil, nil})
	}
	all := append(append([]call{}, refused...), allowed...)
	cases := make([]classCase, len(all))
	for i, c := range all {
		cases[i] = classCase{name: c.name, cmd: c.cmd, file: c.file}
	}
	p := newProject(t, classScript(cases), map[string]string{"a.txt": "a\n"})
	remote := filepath.Join(filepath.Dir(p.dir), "remote.git")
	p.git("init", "-q", "--bare", remote)
	p.git("remote", "add", "origin", remote)
	rules := `{"permission": {"bash": {"*": "allow", "npm *": "allow", "git push *": "deny", "touch *": "deny"}}}`
	p.writeConfig(rules)
	stdout, stderr, code := p.run("run", "--auto", "try the commands")
	if code != 0 {
		t.Fatalf("exit status %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	reqs := p.model.Requests()
	if len(reqs) != len(all)+1 {
		t.Fatalf("%d model requests, want %d\nstderr:\n%s", len(reqs), len(all)+1, stderr)
	}
	for i, c := range all {
		result, ok := toolResult(t, reqs[i+1].Body, fmt.Sprintf("call_%d", i))
		if !ok {
			t.Errorf("%s: no tool result", c.name)
			continue
		}
		exists := false
		if c.file != "" {
			_, err := os.Stat(filepath.Join(p.dir, c.file))
			exists = err == nil
		}
		if i >= len(refused) {
			if !exists || strings.Contains(result, "denied") {
				t.Errorf("%s: %q did not run (file made: %v): %s", c.name, c.cmd, exists, result)
			}
			continue
		}
		if exists {
			t.Errorf("%s: %q ran and made %s", c.name, c.cmd, c.file)
		}
		for _, w := range c.want {
			if !strings.Contains(result, w) {
				t.Errorf("%s: the result lacks %q: %s", c.name, w, result)
			}
		}
		for _, w := range c.not {
			if strings.Contains(result, w) {
				t.Errorf("%s: the result names %q: %s", c.name, w, result)
			}
		}
	}
	out, err := exec.Command("git", "--git-dir", remote, "for-each-ref").CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("the remote received a push (%v): %s", err, out)
	}
}
