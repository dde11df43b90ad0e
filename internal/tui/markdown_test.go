package tui

import (
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestMarkdownBlocks(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []int
	}{
		{"one paragraph", "a\nb", []int{0}},
		{"two paragraphs", "a\n\nb", []int{0, 3}},
		{"indented continuation", "- a\n\n  more of a\n\nb", []int{0, 18}},
		{"blank line in a fence", "```\nx\n\ny\n```\n\nz", []int{0, 14}},
		{"unclosed fence", "```go\nx\n\ny", []int{0}},
		{"tilde fence", "~~~\n\nq\n~~~\n\nr", []int{0, 12}},
		{"inline backticks are no fence", "```a` b\n\nc", []int{0, 9}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mdBlocks(tt.text); !slices.Equal(got, tt.want) {
				t.Errorf("mdBlocks(%q) = %v, want %v", tt.text, got, tt.want)
			}
		})
	}
}

const mdDoc = "# Greeting fix\n\nThe loop calls **greet** twice:\n\n" +
	"```go\nfunc main() {\n\tgreet()\n\n\tgreet()\n}\n```\n\n" +
	"- remove the first call\n- keep the `flag` check\n\n1. build\n2. test\n\nDone."

// TestMarkdownRenders: emphasis and headings lose their marks, code
// blocks are coloured by chroma, and nothing is wider than the view.
func TestMarkdownRenders(t *testing.T) {
	th := newTheme(false, true)
	ls := th.md.render(mdDoc, 60, nil)
	plain := ansi.Strip(strings.Join(ls, "\n"))
	for _, want := range []string{"Greeting fix", "The loop calls greet twice:", "func main() {", "• remove the first call", "1. build", "Done."} {
		if !strings.Contains(plain, want) {
			t.Errorf("the render lacks %q:\n%s", want, plain)
		}
	}
	for _, bad := range []string{"**", "# Greeting", "```"} {
		if strings.Contains(plain, bad) {
			t.Errorf("the render shows the mark %q:\n%s", bad, plain)
		}
	}
	var code string
	for _, l := range ls {
		if strings.Contains(ansi.Strip(l), "func main") {
			code = l
		}
	}
	if !strings.Contains(code, "\x1b[") {
		t.Errorf("the code line is not highlighted: %q", code)
	}
	for _, l := range ls {
		if w := ansi.StringWidth(l); w > 60 {
			t.Errorf("a line is %d cells wide: %q", w, l)
		}
	}
}

// recording counts the text each render is given.
type recording struct {
	textRenderer
	inputs *[]string
}

func (r recording) render(text string, width int, style func(string) string) []string {
	*r.inputs = append(*r.inputs, text)
	return r.textRenderer.render(text, width, style)
}

// TestMarkdownStreamsOnlyTheTail: a Markdown answer streamed a few bytes
// at a time renders the same lines as the finished answer, and a block
// is rendered once it is complete, never again.
func TestMarkdownStreamsOnlyTheTail(t *testing.T) {
	for _, noColor := range []bool{false, true} {
		th := newTheme(noColor, true)
		var inputs []string
		r := recording{textRenderer: th.md, inputs: &inputs}
		var s streamText
		var streamed []string
		for i := 0; i < len(mdDoc); i += 3 {
			streamed = s.lines(r, mdDoc[:min(i+3, len(mdDoc))], 50, nil, 0)
		}
		var done streamText
		want := done.lines(th.md, mdDoc, 50, nil, 0)
		if strings.Join(streamed, "\n") != strings.Join(want, "\n") {
			t.Errorf("noColor %v: streamed:\n%s\nfinished:\n%s", noColor, ansi.Strip(strings.Join(streamed, "\n")), ansi.Strip(strings.Join(want, "\n")))
		}
		heading := 0
		for _, in := range inputs {
			if strings.Contains(in, "# Greeting fix") && strings.Contains(in, "The loop") {
				t.Fatalf("a render took the finished heading with later text: %q", in)
			}
			if strings.HasPrefix(in, "# Greeting fix\n\n") {
				heading++
			}
		}
		if heading != 1 {
			t.Errorf("noColor %v: the finished heading was rendered %d times, want once", noColor, heading)
		}
	}
}
