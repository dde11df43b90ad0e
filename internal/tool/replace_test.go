package tool

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// matched returns the texts a strategy finds.
func matched(content string, spans []span) []string {
	var out []string
	for _, s := range dedupe(spans) {
		out = append(out, content[s.start:s.end])
	}
	return out
}

func TestReplacerOrder(t *testing.T) {
	t.Parallel()
	var names []string
	for _, r := range replacers() {
		names = append(names, r.name)
	}
	want := []string{"simple", "line-trimmed", "block-anchor", "whitespace-normalized", "indentation-flexible",
		"escape-normalized", "trimmed-boundary", "context-aware", "multi-occurrence"}
	if !slices.Equal(names, want) {
		t.Errorf("order %v, want %v", names, want)
	}
}

func TestReplacers(t *testing.T) {
	t.Parallel()
	byName := map[string]func(string, string) []span{}
	for _, r := range replacers() {
		byName[r.name] = r.find
	}
	tests := []struct {
		strategy, name, content, find string
		want                          []string
	}{
		{"simple", "one exact match", "a := 1\nb := 2\n", "b := 2", []string{"b := 2"}},
		{"simple", "every occurrence", "x\nfoo\nfoo\n", "foo", []string{"foo", "foo"}},
		{"simple", "whitespace must match", "\tfoo()\n", "    foo()", nil},
		{"simple", "crlf content, crlf find", "a\r\nb\r\n", "a\r\nb", []string{"a\r\nb"}},

		{"line-trimmed", "indentation ignored", "  a\n    b\nc\n", "a\nb", []string{"  a\n    b"}},
		{"line-trimmed", "tabs vs spaces", "\tif x {\n\t\treturn\n\t}\n", "    if x {\n        return\n    }", []string{"\tif x {\n\t\treturn\n\t}"}},
		{"line-trimmed", "trailing newline of find ignored", "a\nb\n", "a\nb\n", []string{"a\nb"}},
		{"line-trimmed", "crlf lines, span stops before \\r", "x\r\n  y\r\nz\r\n", "y", []string{"  y"}},
		{"line-trimmed", "other words do not match", "  a\n  b\n", "a\nc", nil},

		{"block-anchor", "changed middle line", "func a() {\n\tx := 1\n\ty := 2\n}\n", "func a() {\n\tx := 1\n\ty := 3\n}",
			[]string{"func a() {\n\tx := 1\n\ty := 2\n}"}},
		{"block-anchor", "one extra line inside", "if ok {\n\tone()\n\ttwo()\n\tthree()\n\tfour()\n}\n", "if ok {\n\tone()\n\ttwo()\n\tfour()\n}",
			[]string{"if ok {\n\tone()\n\ttwo()\n\tthree()\n\tfour()\n}"}},
		{"block-anchor", "middle too different", "func a() {\n\treturn compute(1, 2)\n}\n", "func a() {\n\tpanic(\"never here at all\")\n}", nil},
		{"block-anchor", "fewer than three lines", "a\nb\n", "a\nb", nil},
		{"block-anchor", "block much larger than find", "{\n1\n2\n3\n4\n5\n6\n7\n}\n", "{\n1\n2\n}", nil},

		{"whitespace-normalized", "runs of spaces", "a  =   b\n", "a = b", []string{"a  =   b"}},
		{"whitespace-normalized", "inside a line", "x := foo(a,   b) + 1\n", "foo(a, b)", []string{"foo(a,   b)"}},
		{"whitespace-normalized", "several lines", "if  x\n  {y}\n", "if x\n{y}", []string{"if  x\n  {y}"}},
		{"whitespace-normalized", "different words", "a = b\n", "a = c", nil},

		{"indentation-flexible", "deeper in the file", "\t\tfoo\n\t\t\tbar\n", "foo\n\tbar", []string{"\t\tfoo\n\t\t\tbar"}},
		{"indentation-flexible", "eight spaces for four", "        a\n          b\n", "    a\n      b", []string{"        a\n          b"}},
		{"indentation-flexible", "relative indentation must agree", "  a\n  b\n", "a\n  b", nil},

		{"escape-normalized", "literal \\n in find", "hello\nworld\n", `hello\nworld`, []string{"hello\nworld"}},
		{"escape-normalized", "escaped quotes", `say "hi"` + "\n", `say \"hi\"`, []string{`say "hi"`}},
		{"escape-normalized", "escapes in the file", `s := "tab\there"` + "\n", "s := \"tab\there\"", []string{`s := "tab\there"`}},

		{"trimmed-boundary", "spaces around", "x foo() y\n", "  foo()  ", []string{"foo()"}},
		{"trimmed-boundary", "already trimmed", "foo()\n", "foo()", nil},
		{"trimmed-boundary", "blank lines around", "a\nblock\nb\n", "\nblock\n", []string{"block"}},

		{"context-aware", "one of three middle lines differs", "func f() {\n\ta := 1\n\tb := 2\n\tc := 3\n}\n", "func f() {\n\ta := 1\n\tb := 20\n\tc := 3\n}",
			[]string{"func f() {\n\ta := 1\n\tb := 2\n\tc := 3\n}"}},
		{"context-aware", "exactly half differ", "{\n1\n2\n3\n4\n}\n", "{\n1\nx\n3\ny\n}", []string{"{\n1\n2\n3\n4\n}"}},
		{"context-aware", "most differ", "{\n1\n2\n3\n}\n", "{\nx\ny\n3\n}", nil},
		{"context-aware", "line counts differ", "{\n1\n2\n}\n", "{\n1\n}", nil},

		{"multi-occurrence", "all exact occurrences", "x x x", "x", []string{"x", "x", "x"}},
		{"multi-occurrence", "a single one", "abc", "b", []string{"b"}},
		{"multi-occurrence", "none", "abc", "d", nil},
	}
	for _, tt := range tests {
		t.Run(tt.strategy+"/"+tt.name, func(t *testing.T) {
			got := matched(tt.content, byName[tt.strategy](tt.content, tt.find))
			if !slices.Equal(got, tt.want) {
				t.Errorf("%s(%q, %q) = %q, want %q", tt.strategy, tt.content, tt.find, got, tt.want)
			}
		})
	}
}

func TestReplace(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, content, old, new string
		all                     bool
		want, strategy, errText string
	}{
		{name: "exact", content: "a\nb\nc\n", old: "b", new: "B", want: "a\nB\nc\n", strategy: "simple"},
		{name: "tabs vs spaces", content: "func f() {\n\treturn 1\n}\n", old: "    return 1", new: "\treturn 2", want: "func f() {\n\treturn 2\n}\n", strategy: "line-trimmed"},
		{name: "changed middle line", content: "a {\n\tb()\n\tc()\n}\n", old: "a {\n\tb()\n\tcc()\n}", new: "a {\n}", want: "a {\n}\n", strategy: "block-anchor"},
		{name: "ambiguous", content: "x\nfoo()\ny\nfoo()\nz\nfoo()\n", old: "foo()", new: "bar()",
			errText: "Found 3 matches for oldString in the file (at lines 2, 4, 6)"},
		{name: "ambiguous, fuzzy", content: "if a {\n  b\n}\nif a {\n    b\n}\n", old: "if a {\nb\n}", new: "x",
			errText: "Found 2 matches for oldString in the file (at lines 1, 4)"},
		{name: "replace all", content: "foo foo\nfoo\n", old: "foo", new: "bar", all: true, want: "bar bar\nbar\n", strategy: "simple"},
		{name: "not found", content: "a\n", old: "zzz", new: "y", errText: "Could not find oldString in the file"},
		{name: "identical", content: "a\n", old: "a", new: "a", errText: "No changes to apply: oldString and newString are identical."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, strategy, err := replace(tt.content, tt.old, tt.new, tt.all)
			if tt.errText != "" {
				var ee *EditError
				if !errors.As(err, &ee) || !strings.Contains(err.Error(), tt.errText) {
					t.Fatalf("error %v, want one containing %q", err, tt.errText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want || strategy != tt.strategy {
				t.Errorf("got %q by %s, want %q by %s", got, strategy, tt.want, tt.strategy)
			}
		})
	}
}

func TestEditContentKeepsEndingsAndBOM(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, content, old, new, want string
	}{
		{"crlf file, lf strings", "a\r\nb\r\nc\r\n", "b\nc", "B\nC", "a\r\nB\r\nC\r\n"},
		{"crlf file, crlf strings", "a\r\nb\r\n", "a\r\nb", "x\r\ny", "x\r\ny\r\n"},
		{"crlf file, fuzzy match", "if x {\r\n\tdo()\r\n}\r\n", "if x {\n    do()\n}", "if y {\n\tdo()\n}", "if y {\r\n\tdo()\r\n}\r\n"},
		{"lf file, crlf strings", "a\nb\n", "a\r\nb", "x\r\ny", "x\ny\n"},
		{"bom kept", bom + "x = 1\n", "x = 1", "x = 2", bom + "x = 2\n"},
		{"bom in oldString ignored", bom + "x = 1\n", bom + "x = 1", "x = 2", bom + "x = 2\n"},
		{"bom and crlf", bom + "a\r\nb\r\n", "a\nb", "c\nd", bom + "c\r\nd\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := editContent(tt.content, tt.old, tt.new, false)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
