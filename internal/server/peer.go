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
	// that another user owns, or one that could not be found.
	foreign bool
	reason  string
}

// connContext records in ctx whether c comes from another user of this
// machine (see localPeer). A Unix socket needs no check: it is created
// readable by its owner alone.
func connContext(ctx context.Context, c net.Conn) context.Context {
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
