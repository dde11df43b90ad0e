package sse

import (
	"errors"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReader checks the event framing: data lines joined, event names
// kept, other fields and comments skipped, CRLF accepted, an event cut off
// before its empty line dropped.
func TestReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string // name=data
	}{
		{"one event", "data: {\"a\":1}\n\n", []string{"={\"a\":1}\n"}},
		{"no space after the colon", "data:x\n\n", []string{"=x\n"}},
		{"two data lines", "data: a\ndata: b\n\n", []string{"=a\nb\n"}},
		{"named", "event: ping\ndata: {}\n\nevent: stop\n\n", []string{"ping={}\n", "stop="}},
		{"crlf", "event: e\r\ndata: a\r\n\r\ndata: b\r\n\r\n", []string{"e=a\n", "=b\n"}},
		{"comments and fields", ": keep-alive\n\nid: 1\nretry: 5\ndata: a\n\n", []string{"=a\n"}},
		{"blank lines between", "\n\n\ndata: a\n\n\n\ndata: b\n\n", []string{"=a\n", "=b\n"}},
		{"name does not leak", "event: x\ndata: a\n\ndata: b\n\n", []string{"x=a\n", "=b\n"}},
		{"cut off", "data: a\n\ndata: b\n", []string{"=a\n"}},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// One byte at a time, so that no line arrives whole.
			r := NewReader(iotest.OneByteReader(strings.NewReader(tt.in)))
			var got []string
			for r.Next() {
				got = append(got, string(r.Name())+"="+string(r.Data()))
			}
			if r.Err() != nil {
				t.Fatal(r.Err())
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestReaderError(t *testing.T) {
	boom := errors.New("boom")
	r := NewReader(iotest.ErrReader(boom))
	if r.Next() || !errors.Is(r.Err(), boom) {
		t.Errorf("err = %v", r.Err())
	}
}

func TestReaderLongLine(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	r := NewReader(strings.NewReader("data: " + long + "\n\n"))
	if !r.Next() || string(r.Data()) != long+"\n" {
		t.Fatalf("long line not read whole: %d bytes, err %v", len(r.Data()), r.Err())
	}
}
