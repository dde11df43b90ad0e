package tool

import (
	"strings"
	"testing"
)

// FuzzReplace runs the edit replacer chain on arbitrary content, including
// text that is not valid UTF-8. It must never panic; a result must contain
// newString and keep the text around the replaced span.
func FuzzReplace(f *testing.F) {
	seeds := []struct{ content, old, new string }{
		{"func a() {\n\treturn 1\n}\n", "return 1", "return 2"},
		{"x :=  1\ny := 2\n", "x := 1", "x := 3"},
		{"\xff\xfe  a \xc3\x28 b\n", "\xc3\x28 b", "c"},
		{"a \xffb  c\n", "\xffb c", "z"},
		{"  if x {\n    y()\n  }\n", "if x {\n  y()\n}", "if z {}"},
		{"one\ntwo\nthree\nfour\n", "one\ntwo\nthre\nfour", "1"},
		{"dup\ndup\n", "dup", "x"},
	}
	for _, s := range seeds {
		f.Add(s.content, s.old, s.new, false)
	}
	f.Fuzz(func(t *testing.T, content, oldString, newString string, all bool) {
		got, strategy, err := replace(content, oldString, newString, all)
		if err != nil {
			return
		}
		if strategy == "" {
			t.Fatalf("a replacement without a strategy")
		}
		if !strings.Contains(got, newString) {
			t.Fatalf("result %q lacks newString %q", got, newString)
		}
	})
}

func TestWordRunsInvalidUTF8(t *testing.T) {
	tests := []struct {
		s     string
		words []string
		want  []span
	}{
		{"a  b", []string{"a", "b"}, []span{{0, 4}}},
		{"xa\t\tb a b", []string{"a", "b"}, []span{{1, 5}, {6, 9}}},
		{"ab", []string{"a", "b"}, nil},
		{"\xff \xc3\x28", []string{"\xff", "\xc3\x28"}, []span{{0, 4}}},
	}
	for _, tt := range tests {
		got := wordRuns(tt.s, tt.words)
		if len(got) != len(tt.want) {
			t.Fatalf("wordRuns(%q, %q) = %v, want %v", tt.s, tt.words, got, tt.want)
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("wordRuns(%q, %q) = %v, want %v", tt.s, tt.words, got, tt.want)
			}
		}
	}
}
