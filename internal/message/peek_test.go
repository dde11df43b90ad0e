package message

import (
	"encoding/json"
	"testing"
)

// headType is what peekString must agree with: encoding/json's own reading
// of the discriminator.
func headType(b []byte) (string, error) {
	var head struct {
		Type string `json:"type"`
	}
	err := json.Unmarshal(b, &head)
	return head.Type, err
}

func TestPeekString(t *testing.T) {
	tests := []struct {
		in     string
		want   string
		wantOK bool
	}{
		{`{"type":"text","text":"hi"}`, "text", true},
		{` { "id" : "prt_1" , "type" : "tool" } `, "tool", true},
		{`{"state":{"type":"inner","output":"a \"type\": b"},"type":"tool"}`, "tool", true},
		{`{"type":"text","type":"tool"}`, "tool", true},
		{`{"TYPE":"text"}`, "text", true},
		{`{"Type":"a","type":"b","tYpe":"c"}`, "c", true},
		{`{"type":"te\u0078t"}`, "text", true},
		{`{"type":"a\"b"}`, `a"b`, true},
		{`{"a":[1,{"b":"]}"}],"type":"x"}`, "x", true},
		{`{"a":true,"b":null,"c":-1.5e3,"type":"x"}`, "x", true},
		{`{"text":"no discriminator"}`, "", false},
		{`{}`, "", false},
		{`{"type":5}`, "", false},
		{`{"type":null}`, "", false},
		{`{"typ\u0065":"escaped key"}`, "", false},
		{`[{"type":"x"}]`, "", false},
		{`{"type":"x"`, "", false},
		{`{"type":"x",}`, "", false},
		{`{"a":"unterminated}`, "", false},
		{``, "", false},
	}
	for _, tt := range tests {
		got, ok := peekString([]byte(tt.in), "type")
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("peekString(%s) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.wantOK)
		}
		if ok {
			if h, err := headType([]byte(tt.in)); err == nil && h != got {
				t.Errorf("peekString(%s) = %q but encoding/json reads %q", tt.in, got, h)
			}
		}
	}
}

// FuzzPeekString checks that whenever peekString answers for valid JSON,
// encoding/json reads the same discriminator.
func FuzzPeekString(f *testing.F) {
	for _, s := range []string{
		`{"type":"text","text":"hi"}`, `{"a":{"type":"x"},"type":"y"}`, `{"Type":"a","type":"b"}`,
		`{"type":"\u00e9"}`, `{"x":[1,2,{"y":"}"}],"type":"t"}`, `{"type":"a","type":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := peekString(b, "type")
		if !ok || !json.Valid(b) {
			return
		}
		want, err := headType(b)
		if err != nil {
			t.Fatalf("peekString(%s) = %q but encoding/json fails: %v", b, got, err)
		}
		if got != want {
			t.Fatalf("peekString(%s) = %q, encoding/json reads %q", b, got, want)
		}
	})
}
