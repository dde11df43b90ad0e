package jsonscan

import (
	"strconv"
	"testing"
)

func TestScanner(t *testing.T) {
	tests := []struct {
		in   string
		want string // the keys and values read, or "fail"
	}{
		{`{"a":"x","b":12,"c":null,"d":true,"e":false,"f":-3}`, "a=x b=12 c= d e f=-3"},
		{` { "a" : "\u00e9\n\"" } `, "a=é\n\""},
		{`{}`, ""},
		{`{"a":1.5}`, "fail"},
		{`{"a":01}`, "fail"},
		{`{"a":"\ud800"}`, "fail"},
		{`{"a":"` + "\xff" + `"}`, "fail"},
		{`{"a":{"b":1}}`, "fail"},
		{`{"a-b":1}`, "fail"},
		{`{"a":1} x`, "fail"},
		{`{"a":99999999999999999999}`, "fail"},
	}
	for _, tt := range tests {
		s := New([]byte(tt.in))
		got := ""
		s.Object(func(key []byte) bool {
			if got != "" {
				got += " "
			}
			got += string(key)
			switch string(key) {
			case "a":
				got += "=" + s.StrOrNullOrInt()
			case "b", "f":
				got += "=" + strconv.FormatInt(s.Int(), 10)
			case "c":
				got += "=" + s.StrOrNull()
			default:
				s.Skip()
			}
			return true
		})
		if !s.Done() {
			got = "fail"
		}
		if got != tt.want {
			t.Errorf("%s: read %q, want %q", tt.in, got, tt.want)
		}
	}
}

// StrOrNullOrInt reads a string, null or an integer, for the test.
func (s *Scanner) StrOrNullOrInt() string {
	s.space()
	if s.i < len(s.b) && s.b[s.i] != '"' && s.b[s.i] != 'n' {
		s.Int()
		return ""
	}
	return s.StrOrNull()
}

func TestSkipUnknown(t *testing.T) {
	tests := []struct {
		doc    string
		wantOK bool
	}{
		{`{"a": "x", "other": 1}`, true},
		{`{"a": "x", "other": null}`, true},
		{`{"A": "x"}`, false}, // encoding/json would read it as "a"
		{`{"a": "x", "Other": {"nested": 1}}`, false},
	}
	for _, tt := range tests {
		s := New([]byte(tt.doc))
		var a string
		s.Object(func(key []byte) bool {
			if string(key) == "a" {
				a = s.Str()
				return true
			}
			return s.SkipUnknown(key, "a")
		})
		if got := s.Done(); got != tt.wantOK {
			t.Errorf("%s: ok = %v, want %v", tt.doc, got, tt.wantOK)
		}
		if tt.wantOK && a != "x" {
			t.Errorf("%s: a = %q", tt.doc, a)
		}
	}
}
