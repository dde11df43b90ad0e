//go:build !linux

package server

import "net"

// localPeer cannot tell who owns a connection's other end outside Linux:
// nothing is refused, and the token decides.
func localPeer(_, _ *net.TCPAddr) (foreign bool, reason string) { return false, "" }

// confinedPeer cannot tell how a Unix socket's peer runs outside Linux:
// nothing is refused.
func confinedPeer(*net.UnixConn) (foreign bool, reason string) { return false, "" }
