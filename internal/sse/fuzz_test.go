package sse

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzReader reads arbitrary bytes as an event stream. It must never
// panic, and every event it returns holds only what the stream said: its
// data is made of the stream's data lines, each ended by a newline.
func FuzzReader(f *testing.F) {
	f.Add([]byte("event: message_start\ndata: {\"type\":\"message_start\"}\n\n"))
	f.Add([]byte("data: {\"a\":1}\n\ndata: [DONE]\n\n"))
	f.Add([]byte(": comment\nid: 7\nretry: 10\ndata:x\ndata:  y\n\n"))
	f.Add([]byte("data: cut off without an empty line"))
	f.Add([]byte("event: a\r\ndata: b\r\n\r\n"))
	f.Add([]byte("\n\n\nevent:\ndata\n\n"))
	f.Fuzz(func(t *testing.T, stream []byte) {
		r := NewReader(bytes.NewReader(stream))
		for r.Next() {
			if len(r.Name()) == 0 && len(r.Data()) == 0 {
				t.Fatal("an empty event was returned")
			}
			if d := r.Data(); len(d) > 0 && d[len(d)-1] != '\n' {
				t.Fatalf("data %q does not end with a newline", d)
			}
			if bytes.Contains(r.Name(), []byte("\n")) {
				t.Fatalf("name %q holds a newline", r.Name())
			}
			for _, line := range strings.Split(strings.TrimSuffix(string(r.Data()), "\n"), "\n") {
				if !bytes.Contains(stream, []byte(line)) {
					t.Fatalf("data line %q is not in the stream", line)
				}
			}
		}
	})
}
