package anthropic

import "testing"

// TestDecodeEvent checks that a reused event keeps nothing of the previous
// one, that a field of an unexpected type is left empty without losing the
// rest, that absent usage counts stay nil, and that malformed JSON is an
// error.
func TestDecodeEvent(t *testing.T) {
	var ev streamEvent
	if err := decodeEvent([]byte(`{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"read","input":{}}}`), &ev); err != nil {
		t.Fatal(err)
	}
	if ev.Type != "content_block_start" || ev.Index != 2 || ev.ContentBlock.ID != "toolu_1" || ev.ContentBlock.Name != "read" {
		t.Fatalf("event %+v", ev)
	}
	if err := decodeEvent([]byte(`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":7},"usage":{"output_tokens":12,"input_tokens":null}}`), &ev); err != nil {
		t.Fatal(err)
	}
	if ev.Index != 0 || ev.ContentBlock.ID != "" || ev.Delta.StopReason != "end_turn" {
		t.Fatalf("reused event kept old fields: %+v", ev)
	}
	if u := ev.Usage; u.OutputTokens == nil || *u.OutputTokens != 12 || u.InputTokens != nil || u.CacheReadInputTokens != nil {
		t.Fatalf("usage %+v", u)
	}
	if err := decodeEvent([]byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":5}}`), &ev); err != nil || ev.Delta.Type != "text_delta" || ev.Delta.Text != "" {
		t.Fatalf("mistyped field: err %v event %+v", err, ev)
	}
	if err := decodeEvent([]byte("{\"type\":"), &ev); err == nil {
		t.Fatal("malformed event decoded")
	}
}
