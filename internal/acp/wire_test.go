package acp

import (
	"encoding/json"
	"testing"
)

// TestRequestIDMatchesResponse checks that a request's id, as the wire
// keeps it, is the id the SDK writes in its response (encoding/json
// compacts and HTML-escapes a raw id), so that every answered request
// leaves the pending set.
func TestRequestIDMatchesResponse(t *testing.T) {
	for _, raw := range []string{`2`, `"abc"`, `"a<b&c>"`, `"quote \" inside"`, `1e3`} {
		line := []byte(`{"jsonrpc":"2.0","id": ` + raw + ` ,"method":"session/new","params":{}}`)
		id, method, ok := requestOf(line)
		if !ok || method != "session/new" {
			t.Fatalf("requestOf(%s) = %q, %q, %v", line, id, method, ok)
		}
		rid := json.RawMessage(raw)
		resp, err := json.Marshal(struct {
			JSONRPC string           `json:"jsonrpc"`
			ID      *json.RawMessage `json:"id,omitempty"`
			Result  json.RawMessage  `json:"result,omitempty"`
		}{"2.0", &rid, json.RawMessage(`{}`)})
		if err != nil {
			t.Fatal(err)
		}
		if !isResponse(resp) || responseID(resp) != id {
			t.Errorf("id %s: the request is kept as %q, the response %s answers %q", raw, id, resp, responseID(resp))
		}
	}
	for _, line := range []string{
		`{"jsonrpc":"2.0","method":"session/cancel","params":{}}`,
		`{"jsonrpc":"2.0","id":null,"method":"x"}`,
		`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1}}`,
	} {
		if _, _, ok := requestOf([]byte(line)); ok {
			t.Errorf("requestOf(%s) took a message that gets no answer", line)
		}
	}
}
