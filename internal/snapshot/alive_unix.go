//go:build unix

package snapshot

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process with the id runs (one of another
// user counts).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
