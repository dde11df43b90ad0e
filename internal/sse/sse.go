// Package sse reads server-sent events: the framing of the providers'
// streamed responses and of codeloop's own event stream. The provider
// adapters decode the events' data themselves (encoding/json into the few
// fields they use) instead of through the SDKs' reflective decoders, which
// cost several microseconds and dozens of allocations per event; the
// remote client reads the server's events with it. It imports nothing of
// codeloop's.
package sse

import (
	"bufio"
	"bytes"
	"io"
)

// MaxLine bounds one line of a stream, as the SDKs' decoders do.
const MaxLine = 32 << 20

// Reader reads events from a text/event-stream body.
type Reader struct {
	scn  *bufio.Scanner
	name []byte
	data []byte
}

// NewReader returns a Reader of r.
func NewReader(r io.Reader) *Reader {
	scn := bufio.NewScanner(r)
	scn.Buffer(make([]byte, 0, 4096), MaxLine)
	return &Reader{scn: scn}
}

// Next reads the next event: one with a name or data, closed by an empty
// line. It returns false at the end of the stream or on a read error (see
// Err); an event not closed by an empty line is dropped, as a cut-off
// event would be. Ids, retry hints and comments are skipped.
func (r *Reader) Next() bool {
	r.name, r.data = r.name[:0], r.data[:0]
	for r.scn.Scan() {
		line := r.scn.Bytes()
		if len(line) == 0 {
			if len(r.name) == 0 && len(r.data) == 0 {
				continue
			}
			return true
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		switch string(field) {
		case "event":
			r.name = append(r.name[:0], value...)
		case "data":
			r.data = append(r.data, value...)
			r.data = append(r.data, '\n')
		}
	}
	return false
}

// Name is the current event's name, empty when it has none. It is valid
// until the next call to Next.
func (r *Reader) Name() []byte { return r.name }

// Data is the current event's data lines, each followed by a newline. It
// is valid until the next call to Next.
func (r *Reader) Data() []byte { return r.data }

// Err is the read error that ended the stream, if any.
func (r *Reader) Err() error { return r.scn.Err() }
