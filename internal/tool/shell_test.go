package tool

import (
	"os/exec"
	"testing"
)

// TestShellForIgnoresUserShell checks that, with no shell configured,
// commands run in bash whatever $SHELL says: the permission analysis reads
// them as bash does.
func TestShellForIgnoresUserShell(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	for _, user := range []string{"/usr/bin/zsh", "/usr/bin/fish", "/bin/sh"} {
		t.Setenv("SHELL", user)
		if got := shellFor(Env{}); got != bash {
			t.Errorf("with SHELL=%s the shell is %s, want %s", user, got, bash)
		}
	}
	if got := shellFor(Env{Shell: "/bin/sh"}); got != "/bin/sh" {
		t.Errorf("a configured shell is not used: %s", got)
	}
}
