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
