//go:build unix

package mcp

import (
	"os"
	"os/exec"
	"syscall"
)

// setProcessGroup starts cmd in a process group of its own, so that stopping
// a server also stops whatever it started (npx starts node, say).
func setProcessGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	setParentDeathSignal(cmd.SysProcAttr)
}

func termGroup(p *os.Process) error { return signalGroup(p, syscall.SIGTERM) }
func killGroup(p *os.Process) error { return signalGroup(p, syscall.SIGKILL) }

func signalGroup(p *os.Process, sig syscall.Signal) error {
	if p == nil {
		return nil
	}
	if err := syscall.Kill(-p.Pid, sig); err != nil {
		return p.Signal(sig)
	}
	return nil
}
