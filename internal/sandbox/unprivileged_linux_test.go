//go:build linux

package sandbox_test

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// TestConfinementUnprivileged runs TestConfinement and its kin again as the
// unprivileged user nobody when the tests run as root: without root the
// helper makes its mount namespace inside a user namespace, which root's
// run does not exercise.
func TestConfinementUnprivileged(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the tests already run unprivileged")
	}
	if testing.Short() {
		t.Skip("short")
	}
	sandboxFor(t)
	// nobody must reach the test binary and have a temporary directory.
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "sandbox.test")
	copyFile(t, exe, bin)
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(tmp, 0o1777); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run", "^(TestConfinement|TestWorktreeConfinement|TestTerminal|TestGuard.*)$", "-test.v", "-test.count", "1")
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "HOME="+tmp)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	t.Logf("as nobody:\n%s", out.String())
	if err != nil {
		t.Fatalf("TestConfinement as nobody: %v", err)
	}
	if m := regexp.MustCompile(`(?m)^\s+sandbox_linux_test.go:\d+: the sandbox has no mount namespace here: (.*)$`).FindStringSubmatch(out.String()); m != nil {
		t.Skipf("no mount namespace for an unprivileged user here: %s", m[1])
	}
	if !strings.Contains(out.String(), "--- PASS: TestConfinement/rename_git_dir") {
		t.Fatal("the mount namespace cases did not run as nobody")
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}
