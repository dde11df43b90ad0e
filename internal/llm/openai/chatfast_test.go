package openai

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
)

// slowChunk decodes data with encoding/json alone, as decodeChunk does
// when the one-pass scanner declines.
func slowChunk(data []byte) (chatChunk, bool) {
	var c chatChunk
	err := json.Unmarshal(data, &c)
	var te *json.UnmarshalTypeError
	if err != nil && !errors.As(err, &te) {
		return c, false
	}
	return c, true
}

// checkFastChunk fails t when the one-pass decoder takes data and decodes
// it differently from encoding/json, and reports whether it took it.
func checkFastChunk(t *testing.T, data []byte) bool {
	t.Helper()
	var fast chatChunk
	if !fastChunk(data, &fast) {
		return false
	}
	slow, ok := slowChunk(data)
	if !ok {
		t.Fatalf("fast path took %q, which encoding/json rejects", data)
	}
	if len(fast.Choices) == 0 {
		fast.Choices = nil
	}
	if len(slow.Choices) == 0 {
		slow.Choices = nil
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%q:\nfast %+v\nslow %+v", data, fast, slow)
	}
	return true
}

func TestFastChunk(t *testing.T) {
	tests := []struct {
		data string
		take bool
	}{
		{`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"w1 "},"finish_reason":null}]}`, true},
		{`{"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,"model":"gpt-4o-mini", "system_fingerprint": "fp_44709d6fcb", "choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":null}`, true},
		{`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`, true},
		{`{"choices":[{"index":0,"delta":{"reasoning_content":"hm \u00e9\n"}}]}`, true},
		{`{"choices":[{"index":0,"delta":{"content":"caf\u00e9 \"q\" ✓"}}],"obfuscation":"x1"}`, true},
		{`{"choices":[]}`, true},
		{`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"x","function":{"name":"read","arguments":"{"}}]}}]}`, false},
		{`{"choices":[],"usage":{"prompt_tokens":5}}`, false},
		{`{"error":{"message":"overloaded"}}`, false},
		{`{"Error":"x","choices":[]}`, false},
		{`{"choices":[{"index":0,"delta":{"Content":"a"}}]}`, false},
		{`{"choices":[{"index":0,"delta":{"content":5}}]}`, false},
		{`{"choices":[{"index":1.5,"delta":{}}]}`, false},
		{`{"choices":[{"index":0,"delta":{"content":"\ud800"}}]}`, false},
		{`{"choices":[{"index":0,"delta":{"content":"a"}}]} x`, false},
		{`not json`, false},
	}
	for _, tt := range tests {
		if took := checkFastChunk(t, []byte(tt.data)); took != tt.take {
			t.Errorf("%s: fast path took it: %v, want %v", tt.data, took, tt.take)
		}
	}
}

// TestFastChunkFixture checks the Chat Completions wire fixture: every text
// chunk goes through the one-pass decoder and agrees with encoding/json.
func TestFastChunkFixture(t *testing.T) {
	b, err := os.ReadFile("../testdata/wire/openai-chat-text.sse")
	if err != nil {
		t.Fatal(err)
	}
	took := 0
	for _, line := range strings.Split(string(b), "\n") {
		if data, ok := strings.CutPrefix(line, "data: "); ok && data != "[DONE]" {
			if checkFastChunk(t, []byte(data)) {
				took++
			}
		}
	}
	if took == 0 {
		t.Fatal("no chunk of the fixture took the fast path")
	}
}

func FuzzFastChunk(f *testing.F) {
	for _, s := range []string{
		`{"id":"c","choices":[{"index":0,"delta":{"content":"w1 "},"finish_reason":null}]}`,
		`{"choices":[{"index":0,"delta":{"reasoning":"a\\nb"},"logprobs":null}],"usage":null}`,
		`{"choices":[{"index":-0,"delta":{}}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkFastChunk(t, data) })
}
