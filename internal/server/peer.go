package server

import (
	"context"
	"net"
	"sync"
)

// peerKey is the context key of a connection's peer check.
type peerKey struct{}

// peerCheck decides once, on the connection's first request, whether the
// connection is refused: on TCP, one from another user of this machine
// (see localPeer); on a Unix socket, which only its owner can open, one
// from a process confined as codeloop's sandbox confines commands (see
// confinedPeer). It is made when the connection is accepted and decided
// in the connection's own goroutine, so that looking at /proc never holds
// up the accepting of other connections.
type peerCheck struct {
	conn   net.Conn
	once   sync.Once
	reason string // why the connection is refused; "" when it is not
}

func (p *peerCheck) decide() {
	if u, ok := p.conn.(*net.UnixConn); ok {
		if foreign, reason := confinedPeer(u); foreign {
			p.reason = reason
		}
		return
	}
	remote, ok := p.conn.RemoteAddr().(*net.TCPAddr)
	if !ok {
		return
	}
	local, ok := p.conn.LocalAddr().(*net.TCPAddr)
	if !ok {
		return
	}
	if foreign, reason := localPeer(local, remote); foreign {
		p.reason = reason
	}
}

// connContext gives ctx the check of c.
func connContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, peerKey{}, &peerCheck{conn: c})
}

// foreignPeer returns why ctx's connection is refused, or "" when it is
// not or was not accepted by Serve.
func foreignPeer(ctx context.Context) string {
	p, ok := ctx.Value(peerKey{}).(*peerCheck)
	if !ok {
		return ""
	}
	p.once.Do(p.decide)
	return p.reason
}
