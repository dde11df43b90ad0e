package llm

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// scriptedConn returns one scripted read per call, each taking its
// time on a fake clock.
type scriptedConn struct {
	net.Conn
	clock *time.Time
	reads []scriptedRead
}

type scriptedRead struct {
	n    int           // bytes returned; -1 for io.EOF
	wait time.Duration // how long the read blocks
}

func (c *scriptedConn) Read(p []byte) (int, error) {
	r := c.reads[0]
	c.reads = c.reads[1:]
	*c.clock = c.clock.Add(r.wait)
	if r.n < 0 {
		return 0, io.EOF
	}
	return r.n, nil
}

func TestPacedConnSleeps(t *testing.T) {
	const buf = 4096
	tests := []struct {
		name  string
		reads []scriptedRead
		want  []bool // whether each read was preceded by a pause
	}{
		{
			name:  "a fast stream is read in batches",
			reads: []scriptedRead{{100, 5 * time.Microsecond}, {100, 0}, {3000, 0}, {80, 20 * time.Microsecond}},
			want:  []bool{false, true, true, true},
		},
		{
			name:  "a slow stream is read as it comes",
			reads: []scriptedRead{{100, 20 * time.Millisecond}, {120, 15 * time.Millisecond}, {90, 30 * time.Millisecond}},
			want:  []bool{false, false, false},
		},
		{
			name:  "a read that fills the buffer is followed at once",
			reads: []scriptedRead{{buf, 0}, {buf, 0}, {10, 0}, {buf, 0}},
			want:  []bool{false, false, false, true},
		},
		{
			name:  "the stream turns slow and fast again",
			reads: []scriptedRead{{10, 0}, {10, 5 * time.Millisecond}, {10, 0}, {10, 0}},
			want:  []bool{false, true, false, true},
		},
		{
			name:  "the end of the stream",
			reads: []scriptedRead{{10, 0}, {-1, 0}, {-1, 0}},
			want:  []bool{false, true, false},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := time.Unix(0, 0)
			var slept []bool
			paused := false
			c := &pacedConn{
				Conn:  &scriptedConn{clock: &clock, reads: tt.reads},
				now:   func() time.Time { return clock },
				sleep: func(d time.Duration) { paused = true; clock = clock.Add(d) },
			}
			p := make([]byte, buf)
			for range tt.want {
				paused = false
				_, _ = c.Read(p)
				slept = append(slept, paused)
			}
			if fmt.Sprint(slept) != fmt.Sprint(tt.want) {
				t.Errorf("pauses before each read = %v, want %v", slept, tt.want)
			}
		})
	}
}

// TestStreamTransportDeliversAll streams many small flushed events
// through a real server and checks that the paced client reads every
// byte in order, and in far fewer reads than events.
func TestStreamTransportDeliversAll(t *testing.T) {
	const events = 3000
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		f := w.(http.Flusher)
		for i := range events {
			fmt.Fprintf(w, "data: {\"i\":%d}\n\n", i)
			f.Flush()
		}
	}))
	defer srv.Close()

	var reads atomic.Int64
	tr := ProxyTransport(func(string) string { return "" })
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return countingConn{c, &reads}, nil
	}
	paceReads(tr)
	resp, err := (&http.Client{Transport: tr}).Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	scn := bufio.NewScanner(resp.Body)
	i := 0
	for scn.Scan() {
		line := scn.Text()
		if line == "" {
			continue
		}
		if want := fmt.Sprintf("data: {\"i\":%d}", i); line != want {
			t.Fatalf("line %d = %q, want %q", i, line, want)
		}
		i++
	}
	if err := scn.Err(); err != nil {
		t.Fatal(err)
	}
	if i != events {
		t.Fatalf("read %d events, want %d", i, events)
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Errorf("content type %q", resp.Header.Get("Content-Type"))
	}
	n := reads.Load()
	t.Logf("%d events in %d reads", events, n)
	if n > events/3 {
		t.Errorf("%d events took %d reads of the connection; paced, a fast stream is read in batches", events, n)
	}
}

// countingConn counts the reads of its connection.
type countingConn struct {
	net.Conn
	reads *atomic.Int64
}

func (c countingConn) Read(p []byte) (int, error) {
	c.reads.Add(1)
	return c.Conn.Read(p)
}
