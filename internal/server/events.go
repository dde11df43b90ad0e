package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/client/wire"
)

// The server's own events on GET /event.
const (
	TypeServerConnected = "server.connected"
	TypeServerHeartbeat = "server.heartbeat"
)

const (
	connected = `{"type":"` + TypeServerConnected + `","properties":{}}`
	heartbeat = `{"type":"` + TypeServerHeartbeat + `","properties":{}}`
)

// envelope is what an event stream puts around each event: nothing on
// GET /event, OpenCode's {directory, payload} on GET /global/event.
type envelope struct{ prefix, suffix []byte }

// frame appends event ({"type", "properties"}), given an id and put in
// env, to b as one server-sent event.
func (s *Server) frame(b, event []byte, env envelope) []byte {
	b = append(b, "data: "...)
	b = append(b, env.prefix...)
	b = append(b, `{"id":"evt_`...)
	b = strconv.AppendInt(b, s.eventBase, 16)
	b = append(b, '_')
	b = strconv.AppendUint(b, s.eventSeq.Add(1), 16)
	b = append(b, `",`...)
	b = append(b, event[1:]...)
	b = append(b, env.suffix...)
	return append(b, '\n', '\n')
}

// burst caps the events written before a flush.
const burst = 256

// events streams the engine's events as server-sent events. The
// subscription is made before server.connected is written, so a caller
// that waits for server.connected misses nothing that follows. A
// subscriber that takes no bytes for writeWait is disconnected.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	s.stream(w, r, envelope{})
}

// globalEvents streams the engine's events as events does, each in
// OpenCode's envelope {directory, payload} of GET /global/event.
func (s *Server) globalEvents(w http.ResponseWriter, r *http.Request) {
	p, err := s.c.Path(r.Context())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	prefix, err := json.Marshal(p.Directory)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	prefix = append(append([]byte(`{"directory":`), prefix...), `,"payload":`...)
	s.stream(w, r, envelope{prefix: prefix, suffix: []byte("}")})
}

// stream writes the engine's events as server-sent events, each one's
// {"type", "properties"} put in env.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, env envelope) {
	var q wire.EventQuery
	if err := decodeQuery(r, &q); err != nil {
		s.writeError(w, r, err)
		return
	}
	ctx := r.Context()
	ev, err := s.c.Subscribe(ctx, client.EventFilter{SessionID: q.SessionID, Types: q.Type})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	defer ev.Close()
	mark := s.delivery.open(q.SessionID, q.Type)
	defer s.delivery.close(mark)
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	write := func(b []byte) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(writeWait))
		_, err := w.Write(b)
		return err == nil
	}
	flush := func() bool {
		_ = rc.SetWriteDeadline(time.Now().Add(writeWait))
		return rc.Flush() == nil
	}
	if !write(s.frame(nil, []byte(connected), env)) || !flush() {
		return
	}
	done, cancel := context.WithCancel(context.Background())
	cancel()
	buf := make([]byte, 0, 4096)
	beat := time.Now().Add(s.opts.Heartbeat)
	for {
		if !time.Now().Before(beat) {
			if !write(s.frame(nil, []byte(heartbeat), env)) || !flush() {
				return
			}
			beat = time.Now().Add(s.opts.Heartbeat)
		}
		// Wait for an event until the next heartbeat is due.
		hctx, stop := context.WithDeadline(ctx, beat)
		e, err := ev.Next(hctx)
		stop()
		switch {
		case err == nil:
		case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
			continue
		default:
			return // the caller left, the server stops, or the client closed
		}
		// Write the burst that is waiting, then flush once.
		var idled []string
		for n := 0; ; n++ {
			if idle, ok := e.(client.SessionIdleEvent); ok {
				idled = append(idled, idle.SessionID)
			}
			if buf, err = s.appendFrame(buf[:0], e, env); err != nil {
				s.log.Error("server: encoding an event", "type", e.Type(), "err", err)
			} else if !write(buf) {
				return
			}
			if n == burst {
				break
			}
			if e, err = ev.Next(done); err != nil {
				break
			}
		}
		if !flush() {
			return
		}
		s.delivery.wrote(mark, idled)
	}
}

// appendFrame appends e as one server-sent event to b.
func (s *Server) appendFrame(b []byte, e client.Event, env envelope) ([]byte, error) {
	data, err := client.MarshalEvent(e)
	if err != nil {
		return b, err
	}
	return s.frame(b, data, env), nil
}
