package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestBashCompletion(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	// Source the script in a real bash and show the registration.
	script := `source <(codeloop completion bash) || exit 1
complete -p codeloop`
	want := []string{"-F __start_codeloop codeloop"}
	// With bash-completion installed (the script needs its helpers),
	// also complete "codeloop upg" as bash would on Tab.
	const helpers = "/usr/share/bash-completion/bash_completion"
	if _, err := os.Stat(helpers); err == nil {
		script = "source " + helpers + "\n" + script + `
COMP_WORDS=(codeloop upg); COMP_CWORD=1; COMP_LINE="codeloop upg"; COMP_POINT=${#COMP_LINE}
__start_codeloop codeloop upg codeloop
printf 'reply:%s\n' "${COMPREPLY[@]}"`
		want = append(want, "reply:upgrade")
	} else {
		t.Logf("%s is absent: not completing a word", helpers)
	}
	cmd := exec.Command("bash", "--norc", "--noprofile", "-c", script)
	cmd.Env = append(cmd.Environ(), "PATH="+filepath.Dir(binary)+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	for _, want := range want {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestCompletionScripts(t *testing.T) {
	tests := []struct {
		shell, want string
	}{
		{"bash", "__start_codeloop"},
		{"zsh", "#compdef codeloop"},
		{"fish", "complete -c codeloop"},
		{"powershell", "Register-ArgumentCompleter"},
	}
	for _, tt := range tests {
		out, err := exec.Command(binary, "completion", tt.shell).CombinedOutput()
		if err != nil {
			t.Fatalf("codeloop completion %s: %v\n%s", tt.shell, err, out)
		}
		if !strings.Contains(string(out), tt.want) {
			t.Errorf("codeloop completion %s lacks %q", tt.shell, tt.want)
		}
	}
	if err := exec.Command(binary, "completion", "tcsh").Run(); err == nil {
		t.Error("codeloop completion tcsh succeeded; want a usage error")
	}
}
