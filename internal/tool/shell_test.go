package tool

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// TestBashIgnoresUserShell runs the bash tool with $SHELL naming a "zsh"
// that is not bash: the command must still run in bash.
func TestBashIgnoresUserShell(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	dir := t.TempDir()
	zsh := filepath.Join(dir, "zsh")
	if err := os.WriteFile(zsh, []byte("#!/bin/sh\necho not bash\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SHELL", zsh)
	res, err := run(t, testEnv(t), "bash", dir, map[string]any{"command": `echo "bash ${BASH_VERSION%%.*}"`})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Output, "bash ") || strings.TrimSpace(res.Output) == "bash" {
		t.Fatalf("the command did not run in bash: %q", res.Output)
	}
}
