//go:build unix

package hook

import "syscall"

// processAlive reports whether the process pid still exists.
func processAlive(pid int) bool { return syscall.Kill(pid, 0) == nil }
