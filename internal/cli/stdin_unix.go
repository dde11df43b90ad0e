//go:build unix

package cli

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// readable reports whether f has something to read (data, or its end)
// within wait.
func readable(f *os.File, wait time.Duration) bool {
	fds := []unix.PollFd{{Fd: int32(f.Fd()), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, int(wait.Milliseconds()))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return err == nil && n > 0 && fds[0].Revents&(unix.POLLIN|unix.POLLHUP) != 0
	}
}
