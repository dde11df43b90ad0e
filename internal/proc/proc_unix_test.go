//go:build unix

package proc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/codeloop/codeloop/internal/waitfor"
)

// parentEnv makes the test binary act as a codeloop that starts a command
// through Start and then waits to be killed.
const parentEnv = "CODELOOP_PROC_TEST_PARENT"

func TestMain(m *testing.M) {
	if dir := os.Getenv(parentEnv); dir != "" {
		os.Exit(parent(dir))
	}
	os.Exit(m.Run())
}

// parent starts a shell that puts a sleep in the background and sleeps
// itself, records both process ids in dir, and blocks.
func parent(dir string) int {
	script := `sleep 300 & echo $! > "$1/background"; echo $$ > "$1/shell"; sleep 300`
	cmd := exec.Command("/bin/sh", "-c", script, "sh", dir)
	if _, err := Start(cmd); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	select {}
}

// alive reports whether pid runs (exists and is not a zombie).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return true // no /proc: trust kill
	}
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(fields) == 0 || fields[0] != "Z"
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	var pid int
	waitfor.Until(t, path+" to be written", func() bool {
		b, err := os.ReadFile(path)
		n, perr := strconv.Atoi(strings.TrimSpace(string(b)))
		pid = n
		return err == nil && perr == nil
	})
	return pid
}

// TestGroupDiesWithParent SIGKILLs a process that started a command with
// Start: the command and the job it put in the background must both die,
// though nobody stopped them.
func TestGroupDiesWithParent(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), parentEnv+"="+dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	shell := readPid(t, filepath.Join(dir, "shell"))
	background := readPid(t, filepath.Join(dir, "background"))
	t.Cleanup(func() {
		_ = syscall.Kill(shell, syscall.SIGKILL)
		_ = syscall.Kill(background, syscall.SIGKILL)
	})
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if !waitfor.Within(waitfor.Deadline, func() bool { return !alive(shell) && !alive(background) }) {
		t.Fatalf("outlived their parent: shell %v, background job %v; parent's stderr: %s",
			alive(shell), alive(background), stderr.String())
	}
}

// TestReleasedWatcherKillsNothing checks that a command that ended leaves
// what it put in the background alone: the watcher acts only on codeloop's
// death.
func TestReleasedWatcherKillsNothing(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("/bin/sh", "-c", `sleep 300 </dev/null >/dev/null 2>&1 & echo $! > "$1/background"`, "sh", dir)
	p, err := Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	background := readPid(t, filepath.Join(dir, "background"))
	defer syscall.Kill(background, syscall.SIGKILL)
	if !alive(background) {
		t.Fatal("the background job was killed when its shell ended")
	}
	if err := p.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitfor.Until(t, "Signal to reach the background job in the command's group", func() bool { return !alive(background) })
}

func TestStartError(t *testing.T) {
	_, err := Start(exec.Command(filepath.Join(t.TempDir(), "missing")))
	if err == nil {
		t.Fatal("starting a missing program succeeded")
	}
}

func TestWaitReportsExit(t *testing.T) {
	p, err := Start(exec.Command("/bin/sh", "-c", "exit 3"))
	if err != nil {
		t.Fatal(err)
	}
	<-p.Done()
	var ee *exec.ExitError
	if err := p.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("Wait = %v, want exit status 3", err)
	}
}
