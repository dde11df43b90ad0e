//go:build !unix

package tool

import "os/exec"

// exitStatus is the exit code of a finished command.
func exitStatus(cmd *exec.Cmd) (int, string) {
	if cmd.ProcessState == nil {
		return -1, ""
	}
	return cmd.ProcessState.ExitCode(), ""
}
