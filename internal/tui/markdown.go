package tui

import (
	"strings"

	"charm.land/glamour/v2"
	gansi "charm.land/glamour/v2/ansi"
	"charm.land/glamour/v2/styles"
	"github.com/charmbracelet/x/ansi"
)

// markdownText renders the model's text as Markdown with glamour, code
// blocks highlighted by chroma. Text is cut into top-level blocks (a blank
// line followed by a line that starts at the margin, outside a fenced
// code block) and each block is rendered alone, so the render of a text
// is the renders of its blocks joined by blank lines: appending text can
// change only the last block, and a streaming answer re-renders only it.
type markdownText struct {
	style gansi.StyleConfig
	// renderers keeps a glamour renderer for the last widths used;
	// building one parses its style and costs more than a render.
	widths    [2]int
	renderers [2]*glamour.TermRenderer
	next      int
	// tabs gives the tab width of a code block's language.
	tabs tabStops
}

// newMarkdown returns the renderer for a dark or light background, or
// the colourless one.
func newMarkdown(noColor, dark bool) *markdownText {
	var st gansi.StyleConfig
	switch {
	case noColor:
		st = styles.NoTTYStyleConfig
	case dark:
		st = styles.DarkStyleConfig
	default:
		st = styles.LightStyleConfig
	}
	// The view draws its own margins and the gaps between blocks.
	zero := uint(0)
	st.Document.Margin = &zero
	st.Document.BlockPrefix, st.Document.BlockSuffix = "", ""
	st.CodeBlock.Margin = &zero
	return &markdownText{style: st}
}

func (md *markdownText) renderer(width int) *glamour.TermRenderer {
	for i, w := range md.widths {
		if w == width && md.renderers[i] != nil {
			return md.renderers[i]
		}
	}
	r, err := glamour.NewTermRenderer(glamour.WithStyles(md.style), glamour.WithWordWrap(width),
		glamour.WithPreservedNewLines(), glamour.WithChromaFormatter("terminal16m"))
	if err != nil {
		return nil
	}
	md.widths[md.next], md.renderers[md.next] = width, r
	md.next = 1 - md.next
	return r
}

// boundary is the start of the text's last block: what comes before it
// renders the same whatever is appended.
func (md *markdownText) boundary(text string) int {
	b := mdBlocks(text)
	return b[len(b)-1]
}

func (md *markdownText) gap() bool { return true }

// render renders whole blocks of text.
func (md *markdownText) render(text string, width int, style func(string) string) []string {
	starts := mdBlocks(text)
	var out []string
	for i, s := range starts {
		end := len(text)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		block := md.renderBlock(text[s:end], width, style)
		if len(block) == 0 {
			continue
		}
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, block...)
	}
	return out
}

// renderBlock renders one block; plain text stands in if glamour fails.
func (md *markdownText) renderBlock(block string, width int, style func(string) string) []string {
	block = expandCodeTabs(strings.TrimRight(block, "\n "), md.tabs)
	if strings.TrimSpace(block) == "" {
		return nil
	}
	r := md.renderer(max(width, 1))
	if r == nil {
		return plainText{}.render(block, width, style)
	}
	s, err := r.Render(block)
	if err != nil {
		return plainText{}.render(block, width, style)
	}
	ls := strings.Split(s, "\n")
	for i, l := range ls {
		l = trimRightSpace(l)
		if ansi.StringWidth(l) > width {
			l = ansi.Truncate(l, width, "…")
		}
		ls[i] = l
	}
	// Leave out the blank lines glamour puts around a block.
	for len(ls) > 0 && ansi.Strip(ls[0]) == "" {
		ls = ls[1:]
	}
	for len(ls) > 0 && ansi.Strip(ls[len(ls)-1]) == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

// trimRightSpace drops the spaces glamour pads lines with, keeping the
// escape sequences that follow them.
func trimRightSpace(l string) string {
	plain := ansi.Strip(l)
	trimmed := strings.TrimRight(plain, " ")
	if len(trimmed) == len(plain) {
		return l
	}
	w := ansi.StringWidth(trimmed)
	if w == 0 {
		return ""
	}
	if len(plain) == len(l) {
		return trimmed
	}
	// Cut at the trimmed width and close any style left open.
	return ansi.Truncate(l, w, "") + "\x1b[m"
}

// mdBlocks returns the offsets where the top-level blocks of text start;
// the first is 0. A block starts on a line that follows a blank line,
// begins at the margin and is not inside a fenced code block.
func mdBlocks(text string) []int {
	starts := []int{0}
	fence := ""
	blank := false
	for off := 0; off < len(text); {
		end := strings.IndexByte(text[off:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += off
		}
		line := text[off:end]
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) && strings.TrimSpace(strings.TrimLeft(trimmed, fence[:1])) == "" {
				fence = ""
			}
			blank = false
		case strings.TrimSpace(line) == "":
			blank = true
		default:
			if blank && off > 0 && line[0] != ' ' && line[0] != '\t' {
				starts = append(starts, off)
			}
			blank = false
			if f := fenceOf(trimmed); f != "" && len(line)-len(trimmed) < 4 {
				fence = f
			}
		}
		off = end + 1
	}
	return starts
}

// fenceOf returns the fence a line opens (``` or ~~~, three or more), or
// "".
func fenceOf(line string) string {
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(line) && line[n] == c {
			n++
		}
		if n >= 3 {
			if c == '`' && strings.ContainsRune(line[n:], '`') {
				return ""
			}
			return line[:n]
		}
	}
	return ""
}
