package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// wrapperCase is a bash call that reaches touch through a launcher, with
// the programs it needs installed.
type wrapperCase struct {
	classCase
	needs []string
}

// installed keeps the cases whose programs are all on PATH.
func installed(t *testing.T, cases []wrapperCase) []classCase {
	t.Helper()
	var out []classCase
	for _, c := range cases {
		ok := true
		for _, prog := range c.needs {
			if _, err := exec.LookPath(prog); err != nil {
				t.Logf("%s: %s is not installed", c.name, prog)
				ok = false
			}
		}
		if ok {
			out = append(out, c.classCase)
		}
	}
	return out
}

// touchPath is where touch is installed.
func touchPath(t *testing.T) string {
	p, err := exec.LookPath("touch")
	if err != nil {
		t.Skip("touch is not installed")
	}
	return p
}

// TestPermissionWrappersDenied runs, with --auto under a config that
// allows every command but touch and rm, commands that start touch
// through launchers (tracers, namespace tools, session and privilege
// changers, tmux). None may create its file, and the model is told each
// was denied; ordinary uses of the same launchers run.
func TestPermissionWrappersDenied(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	denied := installed(t, []wrapperCase{
		{classCase{"strace", `strace -f -o /dev/null touch w_strace`, "w_strace"}, []string{"strace"}},
		{classCase{"strace output pipe", `strace -o '|touch w_pipe' true`, "w_pipe"}, []string{"strace"}},
		{classCase{"unshare", `unshare -r touch w_unshare`, "w_unshare"}, []string{"unshare"}},
		{classCase{"setpriv", `setpriv --no-new-privs touch w_setpriv`, "w_setpriv"}, []string{"setpriv"}},
		{classCase{"prlimit", `prlimit --nofile=100 touch w_prlimit`, "w_prlimit"}, []string{"prlimit"}},
		{classCase{"ionice", `ionice -c 3 -t touch w_ionice`, "w_ionice"}, []string{"ionice"}},
		{classCase{"sg", `sg root 'touch w_sg'`, "w_sg"}, []string{"sg"}},
		{classCase{"su shell", fmt.Sprintf(`su -s %s root -- w_su`, touchPath(t)), "w_su"}, []string{"su"}},
		{classCase{"ssh-agent", `ssh-agent touch w_agent`, "w_agent"}, []string{"ssh-agent"}},
		{classCase{"dbus-run-session", `dbus-run-session -- touch w_dbus`, "w_dbus"}, []string{"dbus-run-session"}},
		{classCase{"fakeroot", `fakeroot -- touch w_fakeroot`, "w_fakeroot"}, []string{"fakeroot"}},
		{classCase{"script", `script -qc 'touch w_script' /dev/null`, "w_script"}, []string{"script"}},
		{classCase{"tmux", `tmux -L cl-e2e -f /dev/null new-session -d 'touch w_tmux'; sleep 1; tmux -L cl-e2e kill-server`, "w_tmux"},
			[]string{"tmux"}},
		{classCase{"nested", `setpriv --no-new-privs prlimit --nofile=64 timeout 5 touch w_nested`, "w_nested"},
			[]string{"setpriv", "prlimit"}},
	})
	allowed := installed(t, []wrapperCase{
		{classCase{"setpriv ls", `setpriv --no-new-privs ls > o_setpriv`, "o_setpriv"}, []string{"setpriv"}},
		{classCase{"prlimit ls", `prlimit --nofile=64 ls > o_prlimit`, "o_prlimit"}, []string{"prlimit"}},
		{classCase{"timeout go", `timeout 5 ls -la > o_timeout`, "o_timeout"}, nil},
		{classCase{"tmux ls", `tmux -L cl-e2e-none ls > o_tmux 2>&1; true`, "o_tmux"}, []string{"tmux"}},
	})
	if len(denied) == 0 {
		t.Skip("none of the launchers is installed")
	}
	all := append(append([]classCase{}, denied...), allowed...)
	p := classProject(t, classScript(all), `{"permission": {"bash": {"*": "allow", "touch *": "deny", "rm *": "deny"}}}`)
	stdout, stderr, code := p.run("run", "--auto", "try the launchers")
	reqs := p.model.Requests()
	if len(reqs) != len(all)+1 {
		t.Fatalf("%d model requests, want %d (exit %d)\nstdout:\n%s\nstderr:\n%s", len(reqs), len(all)+1, code, stdout, stderr)
	}
	for i, c := range all {
		result, ok := toolResult(t, reqs[i+1].Body, fmt.Sprintf("call_%d", i))
		if !ok {
			t.Errorf("%s: no tool result", c.name)
			continue
		}
		_, err := os.Stat(filepath.Join(p.dir, c.file))
		exists := err == nil
		if i < len(denied) {
			if exists {
				t.Errorf("%s: %q created %s", c.name, c.cmd, c.file)
			}
			if !strings.Contains(result, "denied") || !strings.Contains(result, "touch") {
				t.Errorf("%s: the model was not told touch was denied: %s", c.name, result)
			}
			continue
		}
		if !exists || strings.Contains(result, "denied") {
			t.Errorf("%s: %q did not run (file made: %v): %s", c.name, c.cmd, exists, result)
		}
	}
}

// TestPermissionWrappersAsked checks, with every command allowed, that a
// launcher whose command cannot be found (an unknown option, keys typed
// into a tmux pane) is asked rather than allowed: --auto never approves
// it, so it does not run and the run says why.
func TestPermissionWrappersAsked(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	cases := installed(t, []wrapperCase{
		{classCase{"setpriv unknown option", `setpriv --bogus-option touch w_opt`, "w_opt"}, []string{"setpriv"}},
		{classCase{"tmux send-keys", `tmux -L cl-e2e-keys send-keys 'touch w_keys' Enter`, "w_keys"}, []string{"tmux"}},
		{classCase{"su without a command", `echo 'touch w_su' | su root`, "w_su"}, []string{"su"}},
	})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := classProject(t, classScript([]classCase{c}), `{"permission": {"bash": "allow"}}`)
			stdout, stderr, code := p.run("run", "--auto", "try it")
			if _, err := os.Stat(filepath.Join(p.dir, c.file)); err == nil {
				t.Errorf("%q ran and created %s", c.cmd, c.file)
			}
			if code == 0 || !strings.Contains(stderr, "rejected") {
				t.Errorf("exit status %d, want a rejected ask\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
		})
	}
}

// TestPermissionInlineCode runs interpreters given code on their command
// line: under a catch-all allow, --auto rejects them with a message that
// names the rule to add; a rule naming the interpreter lets the code run;
// a script run by name runs as before.
func TestPermissionInlineCode(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	type inlineCase struct {
		name, prog, cmd, file string
	}
	cases := []inlineCase{
		{"python -c", "python3", `python3 -c 'open("i_py", "w")'`, "i_py"},
		{"python heredoc", "python3", "python3 - <<'EOF'\nopen('i_heredoc', 'w')\nEOF", "i_heredoc"},
		{"perl -e", "perl", `perl -e 'open(F, ">i_perl")'`, "i_perl"},
		{"node -e", "node", `node -e 'require("fs").writeFileSync("i_node", "")'`, "i_node"},
	}
	for _, c := range cases {
		if _, err := exec.LookPath(c.prog); err != nil {
			t.Logf("%s is not installed", c.prog)
			continue
		}
		c := c
		t.Run(c.name+" runs when the user's bash rules allow everything", func(t *testing.T) {
			p := classProject(t, classScript([]classCase{{c.name, c.cmd, c.file}}), `{"permission": {"bash": "allow"}}`)
			stdout, stderr, code := p.run("run", "--auto", "run it")
			if _, err := os.Stat(filepath.Join(p.dir, c.file)); err != nil || code != 0 {
				t.Errorf("%q did not run under an allow-all bash rule (exit %d)\nstdout:\n%s\nstderr:\n%s", c.cmd, code, stdout, stderr)
			}
		})
		t.Run(c.name+" denied by any deny rule", func(t *testing.T) {
			p := classProject(t, classScript([]classCase{{c.name, c.cmd, c.file}}), `{"permission": {"bash": {"*": "allow", "rm *": "deny"}}}`)
			_, _, _ = p.run("run", "--auto", "run it")
			if _, err := os.Stat(filepath.Join(p.dir, c.file)); err == nil {
				t.Errorf("%q ran beside a deny rule", c.cmd)
			}
		})
		t.Run(c.name+" asked", func(t *testing.T) {
			p := classProject(t, classScript([]classCase{{c.name, c.cmd, c.file}}), `{}`)
			stdout, stderr, code := p.run("run", "--auto", "run it")
			if _, err := os.Stat(filepath.Join(p.dir, c.file)); err == nil {
				t.Errorf("%q ran and created %s", c.cmd, c.file)
			}
			if code == 0 || !strings.Contains(stderr, "rejected") || !strings.Contains(stderr+stdout, c.prog+" *") {
				t.Errorf("exit status %d, want a rejected ask naming the rule %q\nstdout:\n%s\nstderr:\n%s", code, c.prog+" *", stdout, stderr)
			}
		})
		t.Run(c.name+" allowed by a rule", func(t *testing.T) {
			rules := fmt.Sprintf(`{"permission": {"bash": {"*": "allow", %q: "allow"}}}`, c.prog+" *")
			p := classProject(t, classScript([]classCase{{c.name, c.cmd, c.file}}), rules)
			stdout, stderr, code := p.run("run", "--auto", "run it")
			if _, err := os.Stat(filepath.Join(p.dir, c.file)); err != nil || code != 0 {
				t.Errorf("%q did not run under a rule naming %s (exit %d)\nstdout:\n%s\nstderr:\n%s", c.cmd, c.prog, code, stdout, stderr)
			}
		})
	}
	if _, err := exec.LookPath("python3"); err != nil {
		return
	}
	t.Run("script", func(t *testing.T) {
		c := classCase{"script", "python3 make_file.py", "i_script"}
		p := classProject(t, classScript([]classCase{c}), `{"permission": {"bash": "allow"}}`)
		if err := os.WriteFile(filepath.Join(p.dir, "make_file.py"), []byte("open('i_script', 'w')\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		stdout, stderr, code := p.run("run", "--auto", "run it")
		if _, err := os.Stat(filepath.Join(p.dir, c.file)); err != nil || code != 0 {
			t.Errorf("the script did not run (exit %d)\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
	})
}
