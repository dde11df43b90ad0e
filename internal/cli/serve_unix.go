//go:build unix

package cli

import (
	"errors"
	"net"

	"golang.org/x/sys/unix"
)

// processAlive reports whether a process with the id runs.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}

// listenPrivateSocket listens on a Unix socket that only the owner can
// connect to: the file is created 0600, with no moment of wider access.
func listenPrivateSocket(path string) (net.Listener, error) {
	old := unix.Umask(0o177)
	defer unix.Umask(old)
	return net.Listen("unix", path)
}
