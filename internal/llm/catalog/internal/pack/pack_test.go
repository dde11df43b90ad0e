package pack

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	in := []Provider{
		{ID: "a", Name: "A", Env: []string{"A_KEY"}, NPM: "@ai-sdk/anthropic", Models: json.RawMessage(`{"m":{"id":"m"}}`)},
		{ID: "b", Name: "B", API: "https://b/v1", Doc: "https://b/doc"},
	}
	data, err := Encode(in)
	if err != nil {
		t.Fatal(err)
	}
	if !Is(data) {
		t.Fatal("encoded data not recognised")
	}
	out, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || out[0].ID != "a" || out[0].Env[0] != "A_KEY" || string(out[0].Models) != `{"m":{"id":"m"}}` ||
		out[1].API != "https://b/v1" || string(out[1].Models) != "{}" {
		t.Errorf("decoded %+v", out)
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, data := range []string{
		`{"not":"packed"}`,
		Magic + `[{"id":"a"}]`,
		Magic + `[{"id":"a","off":0,"len":99}]` + "\n{}",
		Magic + `[{"id":"a","off":-1,"len":1}]` + "\n{}",
		Magic + `not json` + "\n{}",
	} {
		if _, err := Decode([]byte(data)); err == nil {
			t.Errorf("Decode(%q) succeeded", strings.ReplaceAll(data, "\n", `\n`))
		}
	}
}
