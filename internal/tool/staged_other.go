//go:build !unix

package tool

import "os"

// processAlive reports whether a process with the id runs. On Windows
// os.FindProcess fails for one that does not; elsewhere it never fails, so
// every process counts as running and no staged file of a live write is
// removed.
func processAlive(pid int) bool {
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
