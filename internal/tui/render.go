package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// textRenderer turns a message's text into terminal lines of at most a
// width. A renderer splits text at stable boundaries: appending to the
// text never changes how the text before its last boundary renders, so a
// streaming answer re-renders only its tail. The Markdown renderer plugs
// in here with block boundaries; the plain one breaks at line ends.
type textRenderer interface {
	// render renders text (a whole number of stable blocks, or a tail).
	render(text string, width int, style func(string) string) []string
	// boundary returns the offset in text after which changes cannot
	// alter how text[:offset] renders.
	boundary(text string) int
	// gap reports whether two renders of consecutive pieces are joined by
	// a blank line.
	gap() bool
}

// plainText renders text as it is, wrapped at word boundaries (long words
// and CJK runs broken where they must be), one output line per wrapped
// line.
type plainText struct {
	tab int // the tab width, 0 for the default
}

func (plainText) boundary(text string) int { return strings.LastIndexByte(text, '\n') + 1 }

func (plainText) gap() bool { return false }

func (p plainText) render(text string, width int, style func(string) string) []string {
	text = strings.TrimSuffix(text, "\n")
	var out []string
	for _, line := range strings.Split(text, "\n") {
		out = append(out, wrapLine(expandTabsTo(line, p.tab), width, style)...)
	}
	return out
}

// wrapLine wraps one line of plain text to width cells.
func wrapLine(line string, width int, style func(string) string) []string {
	line = strings.TrimRight(line, " \r")
	if line == "" {
		return []string{""}
	}
	if width < 1 {
		width = 1
	}
	var out []string
	for _, l := range strings.Split(ansi.Wrap(line, width, ""), "\n") {
		l = strings.TrimRight(l, " ")
		if style != nil {
			l = style(l)
		}
		out = append(out, l)
	}
	return out
}

// expandTabs replaces tabs by spaces up to the next multiple of four,
// since a terminal's tab stops would break the width arithmetic.
func expandTabs(s string) string { return expandTabsTo(s, defaultTabWidth) }

// streamText renders a growing text, keeping the render of its stable
// part per width and re-rendering only the tail after it.
type streamText struct {
	r textRenderer

	width       int
	stableEnd   int // text[:stableEnd] is rendered in stable
	stable      []string
	styleTag    int // the style the stable lines were rendered with
	renderedFor string
}

// lines renders text at width with style. tag identifies the style, so a
// theme change renders again.
func (s *streamText) lines(r textRenderer, text string, width int, style func(string) string, tag int) []string {
	if r != s.r {
		s.r, s.width = r, -1
	}
	if width != s.width || tag != s.styleTag || s.stableEnd > len(text) || !strings.HasPrefix(text, s.renderedFor[:s.stableEnd]) {
		s.width, s.styleTag, s.stableEnd, s.stable = width, tag, 0, nil
	}
	if b := s.r.boundary(text); b > s.stableEnd {
		s.stable = s.join(s.stable, s.r.render(text[s.stableEnd:b], width, style))
		s.stableEnd = b
	}
	s.renderedFor = text
	tail := text[s.stableEnd:]
	if tail == "" {
		return s.stable
	}
	out := make([]string, 0, len(s.stable)+8)
	out = append(out, s.stable...)
	return s.join(out, s.r.render(tail, width, style))
}

// join appends the lines of a later piece to out.
func (s *streamText) join(out, more []string) []string {
	if len(out) > 0 && len(more) > 0 && s.r.gap() {
		out = append(out, "")
	}
	return append(out, more...)
}
