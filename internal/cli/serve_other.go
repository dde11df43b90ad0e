//go:build !unix

package cli

import "net"

// processAlive reports true: without signals a server's state file is
// trusted until it is removed.
func processAlive(pid int) bool { return pid > 0 }

// listenPrivateSocket listens on a Unix socket.
func listenPrivateSocket(path string) (net.Listener, error) { return net.Listen("unix", path) }
