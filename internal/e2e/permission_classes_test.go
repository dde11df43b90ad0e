package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// classCase is one bash call of the permission-class tests: the command
// and the file it must not create (or, for allowed ones, must create).
type classCase struct {
	name, cmd, file string
}

// classScript is a fake model's script that makes one bash call per case
// and then answers.
func classScript(cases []classCase) string {
	var b strings.Builder
	for i, c := range cases {
		args, _ := json.Marshal(map[string]string{"command": c.cmd})
		fmt.Fprintf(&b, "step\ncall call_%d bash %s\nfinish tool-calls\n", i, args)
	}
	b.WriteString("step\ntext Done.\nfinish stop\n")
	return b.String()
}

// classProject is a project whose config allows every command but touch
// and rm, holding "keep", a symbolic link x and a copy c of touch.
func classProject(t *testing.T, script, rules string) *project {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("runs bash commands")
	}
	touch, err := exec.LookPath("touch")
	if err != nil {
		t.Skip("touch is not installed")
	}
	p := newProject(t, script, map[string]string{"keep": "one two\nthree four\n"})
	p.writeConfig(rules)
	if err := os.Symlink(touch, filepath.Join(p.dir, "x")); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(touch)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.dir, "c"), data, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPermissionClassesDenied runs, with --auto under a config that allows
// every command but touch and rm, commands that reach touch through the
// code other programs run from their options, through a link or a copy,
// and through text bash evaluates as arithmetic. None may create its file;
// every one is reported to the model as denied. Ordinary commands of the
// same programs run.
func TestPermissionClassesDenied(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	denied := []classCase{
		{"git alias", `git -c alias.x='!touch m_git' x`, "m_git"},
		{"git alias in eval", `eval "git -c alias.y='!touch m_git2' y"`, "m_git2"},
		{"git pager env", `GIT_PAGER='touch m_pager' git -p log -1`, "m_pager"},
		{"tar to-command", `tar cf a.tar keep && tar xf a.tar --to-command='touch m_tar'`, "m_tar"},
		{"tar checkpoint", `tar cf b.tar --checkpoint=1 --checkpoint-action=exec='touch m_tar2' keep`, "m_tar2"},
		{"ssh proxycommand", `ssh -o ProxyCommand='touch m_ssh' -o BatchMode=yes h`, "m_ssh"},
		{"awk system", `awk 'BEGIN { system("touch m_awk") }'`, "m_awk"},
		{"awk pipe via xargs", `echo keep | xargs -I{} awk '{ print | "touch m_awk2" }' {}`, "m_awk2"},
		{"sed e", `sed -n '1e touch m_sed' keep`, "m_sed"},
		{"sed e in find", `find . -name keep -exec sed -n '1e touch m_sed2' {} +`, "m_sed2"},
		{"symlink", `./x m_link`, "m_link"},
		{"symlink via sudo-less wrapper", `timeout 5 ./x m_link2`, "m_link2"},
		{"copy", `./c m_copy`, "m_copy"},
		{"link made in the text", `ln -s "$(command -v touch)" z && ./z m_new`, "m_new"},
		{"quoted arithmetic", `echo $(( 'a[$(touch m_arith)]' ))`, "m_arith"},
		{"test operand", `[[ 'a[$(touch m_test)]' -eq 1 ]]`, "m_test"},
		{"subscript", `a=(1); echo "${a['$(touch m_sub)']}"`, "m_sub"},
		{"compound string", `declare -a arr='([$(touch m_decl)]=1)'`, "m_decl"},
		{"compgen words", `compgen -W '$(touch m_compgen)' x`, "m_compgen"},
	}
	allowed := []classCase{
		{"git status", "git status --short > o_git", "o_git"},
		{"ls", "ls > o_ls", "o_ls"},
		{"grep", "grep -n two keep > o_grep", "o_grep"},
		{"sed print", "sed -n 1p keep > o_sed", "o_sed"},
		{"awk field", `awk '{print $1}' keep > o_awk`, "o_awk"},
		{"arithmetic", "n=2; echo $(( n * 3 )) > o_arith", "o_arith"},
		{"tar", "tar czf o_tar.tgz keep", "o_tar.tgz"},
	}
	all := append(append([]classCase{}, denied...), allowed...)
	p := classProject(t, classScript(all), `{"permission": {"bash": {"*": "allow", "touch *": "deny", "rm *": "deny"}}}`)
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
		_, err := os.Stat(filepath.Join(p.dir, c.file))
		exists := err == nil
		if i < len(denied) {
			if exists {
				t.Errorf("%s: %q created %s", c.name, c.cmd, c.file)
			}
			if !strings.Contains(result, "denied") {
				t.Errorf("%s: the model was not told the command was denied: %s", c.name, result)
			}
			continue
		}
		if !exists || strings.Contains(result, "denied") {
			t.Errorf("%s: %q did not run (file made: %v): %s", c.name, c.cmd, exists, result)
		}
	}
}

// TestPermissionClassesAsked checks that, with no rule to deny them,
// commands whose code cannot be judged are asked rather than allowed:
// under --auto, which never approves such a command, the ask is rejected,
// the command does not run, and the run says why.
func TestPermissionClassesAsked(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	cases := []classCase{
		{"git hooks path", `git -c core.hooksPath=./h -c alias.x='!touch m_hooks' x`, "m_hooks"},
		{"awk system", `awk 'BEGIN { system("touch m_awk") }'`, "m_awk"},
		{"sed s///e", `echo 'touch m_sed' | sed 's/^//e'`, "m_sed"},
		{"program not yet made", `cp "$(command -v touch)" y && ./y m_copy`, "m_copy"},
		{"arithmetic on unknown text", `v=$(echo 'a[$(touch m_arith)]'); echo $(( v ))`, "m_arith"},
		{"editor", `printf '!touch m_ed\nq\n' | ed -s keep`, "m_ed"},
	}
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
