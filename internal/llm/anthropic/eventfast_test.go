package anthropic

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
)

// checkFastEvent fails t when the one-pass decoder takes data and decodes
// it differently from encoding/json, and reports whether it took it.
func checkFastEvent(t *testing.T, data []byte) bool {
	t.Helper()
	var fast streamEvent
	if !fastEvent(data, &fast) {
		return false
	}
	var slow streamEvent
	err := json.Unmarshal(data, &slow)
	var te *json.UnmarshalTypeError
	if err != nil && !errors.As(err, &te) {
		t.Fatalf("fast path took %q, which encoding/json rejects: %v", data, err)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%q:\nfast %+v\nslow %+v", data, fast, slow)
	}
	return true
}

func TestFastEvent(t *testing.T) {
	tests := []struct {
		data string
		take bool
	}{
		{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"w1 "}}`, true},
		{`{"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"a\":"}}`, true},
		{`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"caf\u00e9 ✓\n"}}`, true},
		{`{"type":"content_block_stop","index":0}`, true},
		{`{"type":"ping"}`, true},
		{`{"type":"message_stop"}`, true},
		{`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":15}}`, false},
		{`{"type":"message_start","message":{"usage":{"input_tokens":25}}}`, false},
		{`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`, false},
		{`{"type":"content_block_delta","index":0,"delta":{"Text":"a"}}`, false},
		{`{"type":"content_block_delta","index":0,"delta":{"text":["a"]}}`, false},
		{`{"type":"content_block_delta","index":0,"delta":{"text":"\udc00"}}`, false},
		{`{"type":"content_block_delta"} {}`, false},
	}
	for _, tt := range tests {
		if took := checkFastEvent(t, []byte(tt.data)); took != tt.take {
			t.Errorf("%s: fast path took it: %v, want %v", tt.data, took, tt.take)
		}
	}
}

// TestFastEventFixtures checks the Messages wire fixtures: the block
// events go through the one-pass decoder and agree with encoding/json.
func TestFastEventFixtures(t *testing.T) {
	took := 0
	for _, name := range []string{"anthropic-text.sse", "anthropic-thinking.sse", "anthropic-tool-use.sse"} {
		b, err := os.ReadFile("../testdata/wire/" + name)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if data, ok := strings.CutPrefix(line, "data: "); ok && checkFastEvent(t, []byte(data)) {
				took++
			}
		}
	}
	if took == 0 {
		t.Fatal("no event of the fixtures took the fast path")
	}
}

func FuzzFastEvent(f *testing.F) {
	for _, s := range []string{
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"w1 "}}`,
		`{"type":"content_block_stop","index":2,"x":true}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkFastEvent(t, data) })
}
