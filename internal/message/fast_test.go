package message

import (
	"reflect"
	"testing"
)

// fastCases are stored messages and parts: the shapes codeloop writes,
// which the fast decoders must take, and variations they must either
// decode exactly as encoding/json does or leave to it.
var fastCases = []struct {
	name string
	json string
	fast bool // the fast decoder must take it
}{
	{"user", `{"id":"msg_1","sessionID":"ses_1","role":"user","time":{"created":1795596744086},"agent":"build","model":{"providerID":"fake","modelID":"model"}}`, true},
	{"user with system and variant", `{"id":"msg_1","sessionID":"ses_1","role":"user","time":{"created":1},"agent":"plan","model":{"providerID":"p","modelID":"m","variant":"high"},"system":"Be brief."}`, true},
	{"assistant", `{"id":"msg_2","sessionID":"ses_1","role":"assistant","time":{"created":1795596744087,"completed":1795596744091},"parentID":"msg_1","modelID":"model","providerID":"fake","mode":"build","agent":"build","path":{"cwd":"/w","root":"/w"},"cost":0,"tokens":{"total":105,"input":100,"output":5,"reasoning":0,"cache":{"read":0,"write":0}},"finish":"stop"}`, true},
	{"summary", `{"id":"msg_2","role":"assistant","summary":true,"cost":0.00125,"tokens":{"input":-3,"output":5,"reasoning":0,"cache":{"read":1e3,"write":0}},"variant":"x"}`, false},
	{"cost with an exponent", ` { "role" : "assistant" , "cost" : 1.5E-3 , "summary" : false } `, true},
	{"white space", "{\n\t\"role\": \"user\",\r\n \"agent\" : \"a\"\n}\n", true},
	{"empty", `{"role":"user"}`, true},
	{"text", `{"type":"text","id":"prt_1","sessionID":"ses_1","messageID":"msg_1","text":"Question 49: please look at line 98."}`, true},
	{"text with time and flags", `{"type":"text","id":"prt_1","text":"x","synthetic":true,"ignored":false,"time":{"start":1,"end":2}}`, true},
	{"text with escapes", `{"type":"text","text":"line\none\t\"quoted\" \\ \/ \u00e9\u4e2d\b\f\r end"}`, true},
	{"text with UTF-8", `{"type":"text","text":"héllo wörld — 中文 🎉"}`, true},
	{"text with NUL escape", `{"type":"text","text":"a\u0000b"}`, true},
	{"step start", `{"type":"step-start","id":"prt_2","sessionID":"ses_1","messageID":"msg_2","snapshot":"snp_1"}`, true},
	{"step finish", `{"type":"step-finish","id":"prt_3","sessionID":"ses_1","messageID":"msg_2","reason":"stop","snapshot":"snp_1","cost":0,"tokens":{"total":105,"input":100,"output":5,"reasoning":0,"cache":{"read":0,"write":0}}}`, true},
	{"duplicate keys", `{"type":"text","text":"a","text":"b","time":{"start":1},"time":{"end":2}}`, true},
	{"duplicate tokens", `{"type":"step-finish","tokens":{"input":1},"tokens":{"output":2}}`, true},
	{"integer bounds", `{"type":"text","time":{"start":9223372036854775807,"end":-9223372036854775808}}`, true},
	{"integer below the bounds", `{"type":"text","time":{"end":-9223372036854775809}}`, false},
	{"whole costs", `{"type":"step-finish","cost":-0,"tokens":{"input":-42}}`, true},
	{"large whole cost", `{"type":"step-finish","cost":123456789012345}`, true},
	{"larger whole cost", `{"type":"step-finish","cost":-12345678901234567}`, true},
	{"fractional cost", `{"type":"step-finish","cost":-0.000123}`, true},
	{"surrogate pair", `{"type":"text","text":"\ud83c\udf89"}`, false},
	{"lone surrogate", `{"type":"text","text":"\ud83c"}`, false},
	{"invalid UTF-8", "{\"type\":\"text\",\"text\":\"a\xffb\"}", false},
	{"invalid UTF-8 after an escape", "{\"type\":\"text\",\"text\":\"\\n\xff\"}", false},
	{"control character", "{\"type\":\"text\",\"text\":\"a\tb\"}", false},
	{"null", `{"type":"text","text":null}`, false},
	{"null time", `{"type":"text","time":null}`, false},
	{"case-folded key", `{"type":"text","Text":"a"}`, false},
	{"metadata", `{"type":"text","text":"a","metadata":{"k":1}}`, false},
	{"unknown key", `{"type":"step-start","extra":1}`, false},
	{"key with a digit", `{"type":"step-start","k1":1}`, false},
	{"user's completion", `{"role":"user","time":{"created":1,"completed":2}}`, false},
	{"user summary", `{"role":"user","summary":{"title":"t","diffs":[]}}`, false},
	{"assistant error", `{"role":"assistant","error":{"name":"APIError","data":{"message":"m"}}}`, false},
	{"fraction in an integer", `{"type":"text","time":{"start":1.0}}`, false},
	{"integer overflow", `{"type":"text","time":{"start":9223372036854775808}}`, false},
	{"float overflow", `{"type":"step-finish","cost":1e400}`, false},
	{"leading zero", `{"type":"text","time":{"start":01}}`, false},
	{"bad literal", `{"type":"text","synthetic":tru}`, false},
	{"trailing data", `{"type":"text","text":"a"} x`, false},
	{"trailing comma", `{"type":"text","text":"a",}`, false},
	{"unterminated", `{"type":"text","text":"a`, false},
	{"bad escape", `{"type":"text","text":"\x"}`, false},
	{"short unicode escape", `{"type":"text","text":"\u12"}`, false},
	{"string for a number", `{"type":"step-finish","cost":"1"}`, false},
	{"number for a string", `{"type":"text","text":1}`, false},
	{"non-string type", `{"type":"text","type":1}`, false},
	{"array", `[]`, false},
}

// checkFast decodes b with the fast decoders and with encoding/json and
// fails when the fast one took b and the results differ. It reports
// whether the fast decoders took b.
func checkFast(t *testing.T, b []byte) (took bool) {
	t.Helper()
	if role, ok := peekString(b, "role"); ok {
		var fast, slow Info
		if fastInfo(&fast, Role(role), b) {
			took = true
			if err := slow.decode(role, b); err != nil {
				t.Fatalf("fastInfo took %q, which encoding/json refuses: %v", b, err)
			}
			if !reflect.DeepEqual(fast, slow) {
				t.Fatalf("fastInfo(%q)\n = %#v\nwant %#v", b, fast, slow)
			}
		}
	}
	if typ, ok := peekString(b, "type"); ok {
		if fast, ok := fastPart(typ, b); ok {
			took = true
			slow, err := unmarshalPartAs(typ, b)
			if err != nil {
				t.Fatalf("fastPart took %q, which encoding/json refuses: %v", b, err)
			}
			if !reflect.DeepEqual(fast, slow) {
				t.Fatalf("fastPart(%q)\n = %#v\nwant %#v", b, fast, slow)
			}
		}
	}
	return took
}

// TestFastDecode checks that the fast decoders take the shapes codeloop
// writes, decode them as encoding/json does, and leave everything else to
// it.
func TestFastDecode(t *testing.T) {
	for _, tc := range fastCases {
		t.Run(tc.name, func(t *testing.T) {
			if took := checkFast(t, []byte(tc.json)); took != tc.fast {
				t.Errorf("fast decoding taken = %v, want %v", took, tc.fast)
			}
		})
	}
}

// FuzzFastDecode checks that whatever the fast decoders take, encoding/json
// decodes to the same value.
//
//	go test ./internal/message -run '^$' -fuzz FuzzFastDecode -fuzztime 30s
func FuzzFastDecode(f *testing.F) {
	for _, tc := range fastCases {
		f.Add([]byte(tc.json))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkFast(t, b) })
}
