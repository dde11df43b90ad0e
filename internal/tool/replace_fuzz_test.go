package tool

import (
	"strings"
	"testing"
)

// FuzzReplace runs the edit replacer chain on arbitrary content, including
// text that is not valid UTF-8. It must never panic. A result must contain
// newString; a single replacement must be the content with one span of it
// replaced by newString and everything around that span kept.
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
		if !all && !oneSpanReplaced(content, got, newString) {
			t.Fatalf("result %q is not %q with one span replaced by %q (%s)", got, content, newString, strategy)
		}
	})
}

// oneSpanReplaced reports whether got is content[:start] + newString +
// content[end:] for some start <= end. It works from the common prefix and
// suffix of the two texts, so that it stays linear on large inputs.
func oneSpanReplaced(content, got, newString string) bool {
	prefix := 0
	for prefix < len(content) && prefix < len(got) && content[prefix] == got[prefix] {
		prefix++
	}
	suffix := 0
	for suffix < len(content) && suffix < len(got) && content[len(content)-1-suffix] == got[len(got)-1-suffix] {
		suffix++
	}
	// got[start+len(newString):] must be a suffix of content: at most
	// suffix bytes long, and not reaching before start in content.
	for start := max(0, len(got)-len(newString)-suffix); start <= prefix; start++ {
		rest := len(got) - start - len(newString)
		if rest >= 0 && rest <= len(content)-start && got[start:start+len(newString)] == newString {
			return true
		}
	}
	return false
}

func TestWordRunsInvalidUTF8(t *testing.T) {
	t.Parallel()
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

func TestOneSpanReplaced(t *testing.T) {
	t.Parallel()
	tests := []struct {
		content, got, newString string
		want                    bool
	}{
		{"abc", "aXc", "X", true},
		{"abc", "Xabc", "X", true},
		{"abc", "abcX", "X", true},
		{"abc", "X", "X", true},
		{"abcabc", "abXabc", "X", true},
		{"abc", "aXcX", "X", false},
		{"abc", "abd", "X", false},
		{"aaa", "aXa", "X", true},
		{"ab", "aXXb", "XX", true},
		{"ab", "ba", "", false},
	}
	for _, tt := range tests {
		if got := oneSpanReplaced(tt.content, tt.got, tt.newString); got != tt.want {
			t.Errorf("oneSpanReplaced(%q, %q, %q) = %v, want %v", tt.content, tt.got, tt.newString, got, tt.want)
		}
	}
}
