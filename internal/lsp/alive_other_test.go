//go:build !unix

package lsp

import "os"

// processAlive reports whether the process pid still exists.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}
