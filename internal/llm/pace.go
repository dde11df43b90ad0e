package llm

import (
	"context"
	"net"
	"net/http"
	"time"
)

// Pacing of a fast stream: a model streams its answer as one small write
// per token, and read as it comes each costs a read system call, a poll
// and a wake-up of the reading goroutine. When reads keep finding data at
// once, a connection waits pace before the next one, so that it takes what
// arrived meanwhile in one read: a stream of thousands of tokens a second
// costs a few hundred reads instead of one per token, for at most pace of
// delay. A stream slower than that (reads that wait for their data) and a
// bulk transfer (reads that fill the buffer) are read as they come.
const (
	pace = time.Millisecond

	// streamReadBuffer is the buffer the HTTP client reads a response
	// through; a paced read can take this much at once.
	streamReadBuffer = 64 << 10
)

// pacedConn is a connection whose reads are paced as described above.
type pacedConn struct {
	net.Conn
	sleep func(time.Duration)
	now   func() time.Time
	quick bool // the last read found its data at once and left room in the buffer
}

func (c *pacedConn) Read(p []byte) (int, error) {
	if c.quick {
		c.sleep(pace)
	}
	start := c.now()
	n, err := c.Conn.Read(p)
	c.quick = err == nil && n > 0 && n < len(p) && c.now().Sub(start) < pace
	return n, err
}

// StreamTransport returns the transport model requests go through:
// ProxyTransport's, with a larger read buffer and its connections' reads
// paced.
func StreamTransport(getenv func(string) string) *http.Transport {
	tr := ProxyTransport(getenv)
	paceReads(tr)
	return tr
}

// paceReads makes tr read its responses through a larger buffer and its
// connections' reads paced.
func paceReads(tr *http.Transport) {
	dial := tr.DialContext
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &pacedConn{Conn: conn, sleep: time.Sleep, now: time.Now}, nil
	}
	tr.ReadBufferSize = streamReadBuffer
}
