package tui

import (
	"fmt"
	"image/color"
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
	widths    [4]int
	renderers [4]*glamour.TermRenderer
	next      int
	// tabs gives the tab width of a code block's language.
	tabs tabStops
	// blocks caches the lines of blocks rendered before, by width and
	// source: answers repeat lists, code and sentences, and a block seen
	// once costs a lookup the next time, in any entry. It is emptied
	// when it reaches maxCachedBlocks.
	blocks map[blockKey][]string
}

// blockKey names a rendered block: its source and the width.
type blockKey struct {
	width int
	src   string
}

// maxCachedBlocks bounds the blocks markdownText keeps rendered.
const maxCachedBlocks = 4096

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
	// Headings show by their style, not by the marks of their source.
	for _, h := range []*gansi.StyleBlock{&st.H2, &st.H3, &st.H4, &st.H5, &st.H6} {
		h.Prefix = ""
		if noColor {
			bold := true
			h.Bold = &bold
		}
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
	md.next = (md.next + 1) % len(md.widths)
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

// renderBlock renders one block, or returns its cached lines; the lines
// are shared and must not be changed.
func (md *markdownText) renderBlock(block string, width int, style func(string) string) []string {
	k := blockKey{width, block}
	if ls, ok := md.blocks[k]; ok {
		return ls
	}
	ls := md.renderNew(block, width, style)
	if md.blocks == nil || len(md.blocks) >= maxCachedBlocks {
		md.blocks = make(map[blockKey][]string, 256)
	}
	md.blocks[k] = ls
	return ls
}

// renderNew renders one block; plain text stands in if glamour fails.
func (md *markdownText) renderNew(block string, width int, style func(string) string) []string {
	block = expandCodeTabs(strings.TrimRight(block, "\n "), md.tabs)
	if strings.TrimSpace(block) == "" {
		return nil
	}
	// A table of short cells keeps its own width rather than the view's.
	rw := width
	if tw := tableWidth(block); tw > 0 && tw < width {
		rw = tw
	}
	r := md.renderer(max(rw, 1))
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
	if !endsInSpace(l) {
		return l
	}
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

// endsInSpace reports whether l's last character, before any SGR
// escape sequences that close it, is a space; when it is not, l has
// nothing to trim.
func endsInSpace(l string) bool {
	for l != "" {
		switch l[len(l)-1] {
		case ' ':
			return true
		case 'm':
		default:
			return false
		}
		i := strings.LastIndexByte(l, '\x1b')
		if i < 0 || len(l)-i < 3 || l[i+1] != '[' || strings.Trim(l[i+2:len(l)-1], "0123456789;:") != "" {
			return false
		}
		l = l[:i]
	}
	return false
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

// tableWidth is the width a Markdown table needs for its widest cells
// side by side (a cell's padding and the rules between columns
// included), 0 when block is not a table.
func tableWidth(block string) int {
	ls := strings.Split(strings.TrimSpace(block), "\n")
	if len(ls) < 2 || !isTableDelimiter(ls[1]) {
		return 0
	}
	var widths []int
	for i, l := range ls {
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "|") && !strings.Contains(l, "|") {
			return 0
		}
		if i == 1 {
			continue
		}
		for j, c := range tableCells(l) {
			if j >= len(widths) {
				widths = append(widths, 0)
			}
			widths[j] = max(widths[j], ansi.StringWidth(c))
		}
	}
	if len(widths) == 0 {
		return 0
	}
	total := len(widths) - 1
	for _, w := range widths {
		total += w + 2
	}
	return total
}

// isTableDelimiter reports whether l is a table's delimiter row, as
// |---|:--:|.
func isTableDelimiter(l string) bool {
	l = strings.TrimSpace(l)
	return strings.Contains(l, "-") && strings.Trim(l, "|-: ") == ""
}

// tableCells splits a table row into its cells, trimmed.
func tableCells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	row = strings.TrimSuffix(row, "|")
	var cells []string
	start := 0
	for i := 0; i < len(row); i++ {
		switch row[i] {
		case '\\':
			i++
		case '|':
			cells = append(cells, strings.TrimSpace(row[start:i]))
			start = i + 1
		}
	}
	return append(cells, strings.TrimSpace(row[start:]))
}

// recolor takes the Markdown's colours from a theme file's: the text,
// headings, inline code, links and quotes.
func (md *markdownText) recolor(cs map[string]color.Color) {
	hex := func(keys ...string) *string {
		for _, k := range keys {
			if c, ok := cs[k]; ok {
				r, g, b, _ := c.RGBA()
				s := fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
				return &s
			}
		}
		return nil
	}
	st := &md.style
	set := func(p *gansi.StylePrimitive, keys ...string) {
		if c := hex(keys...); c != nil {
			p.Color = c
		}
	}
	set(&st.Document.StylePrimitive, "markdownText", "text")
	set(&st.Paragraph.StylePrimitive, "markdownText", "text")
	set(&st.Heading.StylePrimitive, "markdownHeading", "primary")
	for _, h := range []*gansi.StyleBlock{&st.H1, &st.H2, &st.H3, &st.H4, &st.H5, &st.H6} {
		set(&h.StylePrimitive, "markdownHeading", "primary")
	}
	set(&st.Code.StylePrimitive, "markdownCode", "accent")
	set(&st.Link, "markdownLink", "info")
	set(&st.LinkText, "markdownLinkText", "primary")
	set(&st.BlockQuote.StylePrimitive, "markdownBlockQuote", "textMuted")
	set(&st.Item, "markdownListItem", "text")
	set(&st.Enumeration, "markdownListEnumeration", "text")
	set(&st.Emph, "markdownEmph")
	set(&st.Strong, "markdownStrong")
	md.widths, md.renderers = [4]int{}, [4]*glamour.TermRenderer{}
	md.blocks = nil
}
