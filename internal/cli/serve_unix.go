//go:build unix

package cli

import (
	"errors"
	"net"
	"os"
	"syscall"

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

// hangupSignals are the signals that stop codeloop serve besides SIGINT
// and SIGTERM. Asking for SIGPIPE also turns a write to a broken standard
// output into an EPIPE error instead of the end of the process.
func hangupSignals() []os.Signal { return []os.Signal{syscall.SIGHUP, syscall.SIGPIPE} }

// outputBroken reports whether f, a pipe or a socket, has lost its reader.
func outputBroken(f *os.File) bool {
	if !pipeOrSocket(f) {
		return false
	}
	fds := []unix.PollFd{{Fd: int32(f.Fd())}}
	n, err := unix.Poll(fds, 0)
	return err == nil && n > 0 && fds[0].Revents&(unix.POLLERR|unix.POLLHUP) != 0
}

func pipeOrSocket(f *os.File) bool {
	if f == nil {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&(os.ModeNamedPipe|os.ModeSocket) != 0
}

// watchOutput calls lost, once, when f, a pipe or a socket, loses its
// reader. The returned function stops the watching and waits for it.
func watchOutput(f *os.File, lost func()) func() {
	if !pipeOrSocket(f) {
		return func() {}
	}
	wake, wakeW, err := os.Pipe()
	if err != nil {
		return func() {}
	}
	fd := int32(f.Fd())
	done := make(chan struct{})
	go func() {
		defer close(done)
		// No events asked of f: poll reports its error or hang-up anyway.
		fds := []unix.PollFd{{Fd: fd}, {Fd: int32(wake.Fd()), Events: unix.POLLIN}}
		for {
			_, err := unix.Poll(fds, -1)
			switch {
			case errors.Is(err, unix.EINTR):
				continue
			case err != nil || fds[1].Revents != 0:
				return
			case fds[0].Revents&(unix.POLLERR|unix.POLLHUP|unix.POLLNVAL) != 0:
				lost()
				return
			}
		}
	}()
	return func() {
		wakeW.Close()
		<-done
		wake.Close()
	}
}
