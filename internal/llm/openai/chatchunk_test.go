package openai

import "testing"

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
