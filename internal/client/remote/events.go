package remote

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/client/wire"
	"github.com/codeloop/codeloop/internal/sse"
)

const (
	// eventBuffer is how many events a stream reads ahead of Next; when
	// it is full the stream stops reading and the server holds the rest.
	eventBuffer = 1024
	// reconnectFor bounds the attempts to reopen a broken stream.
	reconnectFor = 10 * time.Second
)

// events reads GET /event in a goroutine it owns; Close ends it.
type events struct {
	c     *Client
	query url.Values

	ctx    context.Context
	cancel context.CancelFunc
	ch     chan client.Event
	err    error         // why ch was closed; set before
	done   chan struct{} // the reader has returned

	once   sync.Once
	closed chan struct{}
	mu     sync.Mutex // serialises Next
}

// Subscribe opens the server's event stream with f and returns once the
// server has subscribed, so no event that follows is missed.
func (c *Client) Subscribe(ctx context.Context, f client.EventFilter) (client.Events, error) {
	if err := c.alive(); err != nil {
		return nil, err
	}
	q := url.Values{}
	if f.SessionID != "" {
		q.Set("sessionID", f.SessionID)
	}
	for _, t := range f.Types {
		q.Add("type", t)
	}
	sctx, cancel := context.WithCancel(c.ctx)
	e := &events{c: c, query: q, ctx: sctx, cancel: cancel, ch: make(chan client.Event, eventBuffer), done: make(chan struct{}), closed: make(chan struct{})}
	// The call's ctx bounds the handshake only.
	stop := context.AfterFunc(ctx, cancel)
	body, err := e.open()
	if !stop() || err != nil {
		cancel()
		if body != nil {
			body.Close()
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		cancel()
		body.Close()
		return nil, fmt.Errorf("client: %w", client.ErrClosed)
	}
	c.subs[e] = struct{}{}
	c.mu.Unlock()
	go e.read(body)
	return e, nil
}

// frames reads server-sent events' data with the reader the provider
// adapters use too.
type frames struct {
	body io.ReadCloser
	r    *sse.Reader
}

func (f *frames) Close() error { return f.body.Close() }

// next returns the next event's data: its data lines joined by newlines.
func (f *frames) next() ([]byte, error) {
	if f.r.Next() {
		return bytes.Clone(bytes.TrimSuffix(f.r.Data(), []byte("\n"))), nil
	}
	if err := f.r.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("an event of more than %d bytes", sse.MaxLine)
		}
		return nil, err
	}
	return nil, io.EOF
}

// open makes the request and reads up to server.connected.
func (e *events) open() (*frames, error) {
	req, err := e.c.newRequest(e.ctx, wire.EventSubscribe.Method, wire.EventSubscribe.Pattern, e.query, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := e.c.streams.Do(req)
	if err != nil {
		return nil, fmt.Errorf("opening the event stream of %s: %w", e.c.base, err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		return nil, readError(resp)
	}
	f := &frames{body: resp.Body, r: sse.NewReader(resp.Body)}
	data, err := f.next()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("reading the event stream of %s: %w", e.c.base, err)
	}
	if !bytes.Contains(data, []byte(`"server.connected"`)) {
		f.Close()
		return nil, fmt.Errorf("the event stream of %s did not start with server.connected", e.c.base)
	}
	return f, nil
}

// read decodes events into e.ch until the stream is closed. A stream that
// breaks is reopened, and the events missed meanwhile are reported as a
// client.EventsDroppedEvent.
func (e *events) read(f *frames) {
	defer close(e.done)
	defer close(e.ch)
	for {
		err := e.pump(f)
		f.Close()
		if e.ctx.Err() != nil {
			e.err = client.ErrClosed
			return
		}
		if f, err = e.reopen(err); err != nil {
			e.err = err
			return
		}
		if !e.send(client.EventsDroppedEvent{}) {
			f.Close()
			e.err = client.ErrClosed
			return
		}
	}
}

// pump moves events from f to e.ch until f fails or e is closed.
func (e *events) pump(f *frames) error {
	for {
		data, err := f.next()
		if err != nil {
			return err
		}
		ev, err := client.UnmarshalEvent(data)
		if err != nil || ev == nil {
			continue // server.heartbeat, or an event this client does not know
		}
		if !e.send(ev) {
			return client.ErrClosed
		}
	}
}

func (e *events) send(ev client.Event) bool {
	select {
	case e.ch <- ev:
		return true
	case <-e.ctx.Done():
		return false
	}
}

// reopen tries to open the stream again for reconnectFor.
func (e *events) reopen(cause error) (*frames, error) {
	deadline := time.Now().Add(reconnectFor)
	wait := 100 * time.Millisecond
	for {
		f, err := e.open()
		if err == nil {
			return f, nil
		}
		if e.ctx.Err() != nil {
			return nil, client.ErrClosed
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the event stream of %s ended (%v) and could not be reopened: %w", e.c.base, cause, err)
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-e.ctx.Done():
			t.Stop()
			return nil, client.ErrClosed
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// Next returns the next event; one already read wins over a done ctx.
func (e *events) Next(ctx context.Context) (client.Event, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	select {
	case <-e.closed:
		return nil, client.ErrClosed
	default:
	}
	select {
	case ev, ok := <-e.ch:
		return e.got(ev, ok)
	default:
	}
	select {
	case ev, ok := <-e.ch:
		return e.got(ev, ok)
	case <-e.closed:
		return nil, client.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (e *events) got(ev client.Event, ok bool) (client.Event, error) {
	if ok {
		return ev, nil
	}
	select {
	case <-e.closed:
		return nil, client.ErrClosed
	default:
	}
	return nil, e.err
}

// Close ends the stream and waits for its reader.
func (e *events) Close() error {
	e.once.Do(func() {
		close(e.closed)
		e.cancel()
		<-e.done
		e.c.mu.Lock()
		delete(e.c.subs, e)
		e.c.mu.Unlock()
	})
	return nil
}
