package openai

import (
	"errors"
	"strings"
	"testing"
	"testing/iotest"
)

// TestSSEReader checks the event framing the Chat Completions stream is
// read with: data lines joined, other fields and comments skipped, CRLF
// accepted, an event cut off before its empty line dropped.
func TestSSEReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"one event", "data: {\"a\":1}\n\n", []string{"{\"a\":1}\n"}},
		{"no space after the colon", "data:x\n\n", []string{"x\n"}},
		{"two data lines", "data: a\ndata: b\n\n", []string{"a\nb\n"}},
		{"crlf", "data: a\r\n\r\ndata: b\r\n\r\n", []string{"a\n", "b\n"}},
		{"comments and fields", ": keep-alive\n\nevent: x\nid: 1\nretry: 5\ndata: a\n\n", []string{"a\n"}},
		{"blank lines between", "\n\n\ndata: a\n\n\n\ndata: b\n\n", []string{"a\n", "b\n"}},
		{"cut off", "data: a\n\ndata: b\n", []string{"a\n"}},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// One byte at a time, so that no line arrives whole.
			r := newSSEReader(iotest.OneByteReader(strings.NewReader(tt.in)))
			var got []string
			for {
				data, ok := r.next()
				if !ok {
					break
				}
				got = append(got, string(data))
			}
			if r.err() != nil {
				t.Fatal(r.err())
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSSEReaderError(t *testing.T) {
	boom := errors.New("boom")
	r := newSSEReader(iotest.DataErrReader(iotest.ErrReader(boom)))
	if _, ok := r.next(); ok || !errors.Is(r.err(), boom) {
		t.Errorf("err = %v", r.err())
	}
}

// TestDecodeChunk checks that a field of an unexpected type is left empty
// without losing the rest of the chunk, that a reused chunk keeps nothing
// of the previous one, and that malformed JSON is an error.
func TestDecodeChunk(t *testing.T) {
	var c chatChunk
	if err := decodeChunk([]byte(`{"choices":[{"index":0,"delta":{"content":"a","reasoning":{"effort":"high"},"tool_calls":[{"index":0,"id":"x","function":{"name":"read","arguments":"{"}}]},"finish_reason":null}],"usage":{"prompt_tokens":5,"prompt_cache_hit_tokens":2}}`), &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Choices) != 1 || c.Choices[0].Delta.Content != "a" || c.Choices[0].Delta.Reasoning != "" ||
		len(c.Choices[0].Delta.ToolCalls) != 1 || c.Choices[0].Delta.ToolCalls[0].Function.Name != "read" ||
		c.Usage == nil || c.Usage.PromptCacheHitTokens != 2 {
		t.Fatalf("chunk %+v", c)
	}
	if err := decodeChunk([]byte(`{"choices":[{"index":0,"delta":{"reasoning_content":"hm"}}]}`), &c); err != nil {
		t.Fatal(err)
	}
	if d := c.Choices[0].Delta; d.Content != "" || len(d.ToolCalls) != 0 || d.reasoning() != "hm" || c.Usage != nil || c.Error != nil {
		t.Fatalf("reused chunk kept old fields: %+v", c)
	}
	if err := decodeChunk([]byte(`{"error":{"message":"overloaded"}}`), &c); err != nil || c.Error == nil {
		t.Fatalf("error payload: err %v chunk %+v", err, c)
	}
	if err := decodeChunk([]byte("not json\n"), &c); err == nil {
		t.Fatal("malformed chunk decoded")
	}
}
