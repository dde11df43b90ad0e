//go:build !unix

package cli

import (
	"net"
	"os"
)

// processAlive reports true: without signals a server's state file is
// trusted until it is removed.
func processAlive(pid int) bool { return pid > 0 }

// listenPrivateSocket listens on a Unix socket.
func listenPrivateSocket(path string) (net.Listener, error) { return net.Listen("unix", path) }

// hangupSignals are the signals that stop codeloop serve besides an
// interrupt: none here.
func hangupSignals() []os.Signal { return nil }

// outputBroken reports false: the loss of the output's reader is not
// watched here.
func outputBroken(*os.File) bool { return false }

// watchOutput does nothing here.
func watchOutput(*os.File, func()) func() { return func() {} }
