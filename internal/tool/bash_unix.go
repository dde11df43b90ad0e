//go:build unix

package tool

import (
	"os/exec"
	"syscall"
)

// exitStatus is the exit code of a finished command and, when a signal
// ended it, the signal's name.
func exitStatus(cmd *exec.Cmd) (int, string) {
	st := cmd.ProcessState
	if st == nil {
		return -1, ""
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, ws.Signal().String()
	}
	return st.ExitCode(), ""
}
