package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync"
	"time"
)

// wire is the agent's side of the streams. Writes are whole messages (the
// SDK writes each message, newline included, in one call) and are
// serialised with the agent's own error replies. A goroutine may wait for
// a message containing some text to have been written: the agent uses it
// to send a new session's first updates only after the editor has the
// session's id.
//
// It also keeps the editor's requests not answered yet, so that the agent
// can answer every request it read before it stops, and so that an editor
// closing its stream right after its requests still gets their answers.
type wire struct {
	mu      sync.Mutex
	w       io.Writer
	waiters []waiter

	pending  map[string]bool // ids of requests read and not answered, true for prompts; under mu
	answered chan struct{}   // signalled whenever a request is answered
}

type waiter struct {
	text []byte
	done chan struct{}
}

func newWire(w io.Writer) *wire {
	return &wire{w: w, pending: map[string]bool{}, answered: make(chan struct{}, 1)}
}

// Write writes one message of the SDK's.
func (o *wire) Write(p []byte) (int, error) {
	return o.write(p, true)
}

// write writes one message; counted says it may answer a request the SDK
// read (the agent's own error replies answer lines the SDK never saw).
func (o *wire) write(p []byte, counted bool) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n, err := o.w.Write(p)
	if counted && isResponse(p) {
		id := responseID(p)
		if _, ok := o.pending[id]; ok {
			delete(o.pending, id)
			select {
			case o.answered <- struct{}{}:
			default:
			}
		}
	}
	if err == nil && len(o.waiters) > 0 {
		kept := o.waiters[:0]
		for _, w := range o.waiters {
			if bytes.Contains(p, w.text) {
				close(w.done)
			} else {
				kept = append(kept, w)
			}
		}
		o.waiters = kept
	}
	return n, err
}

// isResponse reports whether a message the SDK wrote answers a request:
// it writes "jsonrpc", "id", then "method" for a request and "result" or
// "error" for a response.
func isResponse(p []byte) bool {
	rest, ok := bytes.CutPrefix(p, []byte(`{"jsonrpc":"2.0","id":`))
	if !ok {
		return false
	}
	m := bytes.Index(rest, []byte(`"method":`))
	for _, key := range []string{`"result":`, `"error":`} {
		if i := bytes.Index(rest, []byte(key)); i >= 0 && (m < 0 || i < m) {
			return true
		}
	}
	return false
}

// responseID returns the id of a response the SDK wrote, as its JSON
// text.
func responseID(p []byte) string {
	rest, _ := bytes.CutPrefix(p, []byte(`{"jsonrpc":"2.0","id":`))
	if len(rest) > 0 && rest[0] == '"' {
		for j := 1; j < len(rest); j++ {
			switch rest[j] {
			case '\\':
				j++
			case '"':
				return string(rest[:j+1])
			}
		}
		return ""
	}
	if i := bytes.IndexByte(rest, ','); i >= 0 {
		return string(bytes.TrimSpace(rest[:i]))
	}
	return ""
}

// drain waits until every request read has been answered, or until the
// timeout.
func (o *wire) drain(timeout time.Duration) bool {
	return o.settle(timeout, false)
}

// settle waits until every request read has been answered (prompts aside
// when skipPrompts is set), or until the timeout.
func (o *wire) settle(timeout time.Duration, skipPrompts bool) bool {
	deadline := time.After(timeout)
	for {
		o.mu.Lock()
		n := 0
		for _, prompt := range o.pending {
			if !prompt || !skipPrompts {
				n++
			}
		}
		o.mu.Unlock()
		if n == 0 {
			return true
		}
		select {
		case <-o.answered:
		case <-deadline:
			return false
		}
	}
}

// written returns a channel closed once a message containing text has
// been written, and a function that stops waiting.
func (o *wire) written(text string) (<-chan struct{}, func()) {
	o.mu.Lock()
	defer o.mu.Unlock()
	w := waiter{text: []byte(text), done: make(chan struct{})}
	o.waiters = append(o.waiters, w)
	return w.done, func() {
		o.mu.Lock()
		defer o.mu.Unlock()
		for i, x := range o.waiters {
			if x.done == w.done {
				o.waiters = append(o.waiters[:i], o.waiters[i+1:]...)
				return
			}
		}
	}
}

// maxLine is the longest message accepted, as the SDK's reader.
const maxLine = 10 << 20

// filter returns the stream the SDK reads: the lines of r that are JSON-RPC
// messages. A line that is not JSON is answered with a parse error and one
// that is JSON but no message with an invalid-request error, as JSON-RPC
// asks, instead of being dropped without a word. The goroutine it starts
// ends when r ends or the SDK stops reading.
func (o *wire) filter(r io.Reader, log *slog.Logger) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			line, err := readLine(br)
			if len(bytes.TrimSpace(line)) > 0 {
				if reply := o.check(line); reply != nil {
					log.Warn("acp: refused a message", "error", string(reply))
					if _, werr := o.write(reply, false); werr != nil {
						_ = pw.CloseWithError(werr)
						return
					}
				} else {
					if id, method, ok := requestOf(line); ok {
						o.mu.Lock()
						o.pending[id] = method == "session/prompt"
						o.mu.Unlock()
					}
					if _, werr := pw.Write(append(line, '\n')); werr != nil {
						return
					}
				}
			}
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
					// The SDK cancels what is still running when its
					// stream ends: let the requests read so far be
					// answered first, prompts aside (they are cancelled:
					// the editor has gone).
					o.settle(drainWait, true)
				}
				_ = pw.CloseWithError(err)
				return
			}
		}
	}()
	return pr
}

// readLine reads one line without its end, up to maxLine bytes; the rest
// of a longer line is skipped and the line returned cut, so it fails to
// parse and is answered.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) <= maxLine {
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), err
	}
}

// envelope is what every JSON-RPC message has.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method *string         `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// check returns the error reply for a line that is no JSON-RPC message,
// or nil for one that is.
func (o *wire) check(line []byte) []byte {
	if !json.Valid(line) {
		return errorReply(nil, -32700, "Parse error: the line is not JSON; send one JSON-RPC message per line")
	}
	var e envelope
	if err := json.Unmarshal(line, &e); err != nil {
		return errorReply(nil, -32600, "Invalid request: a message must be a JSON object")
	}
	if e.Method == nil && e.Result == nil && e.Error == nil {
		return errorReply(e.ID, -32600, "Invalid request: the message has no method")
	}
	if e.Method != nil && *e.Method == "" {
		return errorReply(e.ID, -32600, "Invalid request: the method is empty")
	}
	return nil
}

// requestOf returns the id, as the SDK writes it back in the response, and
// the method of a line that passed check and is a request, one the SDK
// answers.
func requestOf(line []byte) (id, method string, ok bool) {
	var e envelope
	if json.Unmarshal(line, &e) != nil {
		return "", "", false
	}
	if e.Method == nil || len(e.ID) == 0 || string(e.ID) == "null" || *e.Method == "$/cancel_request" {
		return "", "", false
	}
	// encoding/json writes a raw id compacted and HTML-escaped.
	var compact, escaped bytes.Buffer
	if json.Compact(&compact, e.ID) != nil {
		return "", "", false
	}
	json.HTMLEscape(&escaped, compact.Bytes())
	return escaped.String(), *e.Method, true
}

// errorReply encodes a JSON-RPC error response; a nil id is null.
func errorReply(id json.RawMessage, code int, message string) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, message}})
	return append(b, '\n')
}
