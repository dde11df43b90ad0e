//go:build !unix

package proc

import (
	"os"
	"os/exec"
	"syscall"
)

// prepare does nothing where there are no process groups.
func prepare(*exec.Cmd) {}

func lockThread() func() { return func() {} }

// signalGroup kills the process; without process groups what it started
// may survive.
func signalGroup(p *os.Process, _ syscall.Signal) error { return p.Kill() }

type watcher struct{}

func watch(int) *watcher { return nil }

func (*watcher) release() {}

// Alive reports whether a process with the id runs. On Windows
// os.FindProcess fails for one that does not; elsewhere it never fails, so
// every process counts as running.
func Alive(pid int) bool {
	if pid == os.Getpid() {
		return true
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}
