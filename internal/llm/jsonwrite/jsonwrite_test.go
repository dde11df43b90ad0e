package jsonwrite

import (
	"bytes"
	"encoding/json"
	"testing"
)

// encode is what encoding/json writes for s, with or without HTML escaping.
func encode(t testing.TB, s string, html bool) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(html)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "a\"b\\c", "<tag> & more", "line\nbreak\ttab\x01", "\u2028\u2029", "bad \xff utf8", "日本語"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, html := range []bool{false, true} {
			got, want := AppendString([]byte("x"), s, html), append([]byte("x"), encode(t, s, html)...)
			if !bytes.Equal(got, want) {
				t.Fatalf("AppendString(%q, html=%v) = %s, encoding/json writes %s", s, html, got, want)
			}
		}
	})
}
