package server

import (
	"context"
	"net"
)

// peerKey is the context key of a connection's peer check.
type peerKey struct{}

// peerCheck is what the server learnt of a connection's other end when
// it accepted it.
type peerCheck struct {
	// foreign is set when the other end is a socket on this machine
	// that another user owns, or one that could not be found, or a
	// confined process.
	foreign bool
	reason  string
}

// connContext records in ctx whether c is refused: on TCP, a connection
// from another user of this machine (see localPeer); on a Unix socket,
// which only its owner can open, one from a process confined as codeloop's
// sandbox confines commands (see confinedPeer).
func connContext(ctx context.Context, c net.Conn) context.Context {
	if u, ok := c.(*net.UnixConn); ok {
		if foreign, reason := confinedPeer(u); foreign {
			return context.WithValue(ctx, peerKey{}, peerCheck{foreign: true, reason: reason})
		}
		return ctx
	}
	remote, ok := c.RemoteAddr().(*net.TCPAddr)
	if !ok {
		return ctx
	}
	local, ok := c.LocalAddr().(*net.TCPAddr)
	if !ok {
		return ctx
	}
	if foreign, reason := localPeer(local, remote); foreign {
		return context.WithValue(ctx, peerKey{}, peerCheck{foreign: true, reason: reason})
	}
	return ctx
}

// foreignPeer returns why ctx's connection is refused, or "".
func foreignPeer(ctx context.Context) string {
	if p, ok := ctx.Value(peerKey{}).(peerCheck); ok && p.foreign {
		return p.reason
	}
	return ""
}
