package tui

import (
	"image/color"
	"path/filepath"
	"strings"

	"charm.land/lipgloss/v2"
)

// theme holds the styles of the view. The colourless theme (NO_COLOR) keeps
// bold, faint and reverse only, so emphasis survives without colour.
type theme struct {
	name string

	accent    lipgloss.Style // the user's bar, the agent's name
	user      lipgloss.Style // the user's text
	text      lipgloss.Style // the model's text
	faint     lipgloss.Style // secondary text
	reasoning lipgloss.Style
	toolName  lipgloss.Style
	ok        lipgloss.Style
	bad       lipgloss.Style
	warn      lipgloss.Style
	selected  lipgloss.Style // the selected line of a list
	title     lipgloss.Style // dialog titles
	border    lipgloss.Style // dialog frames
	code      lipgloss.Style // tool input and output
	diffAdd   lipgloss.Style // an added line
	diffDel   lipgloss.Style // a removed line
	diffHunk  lipgloss.Style // a hunk's header
	lineNo    lipgloss.Style // line numbers beside a diff
	// md renders the model's Markdown.
	md textRenderer
	// tabs gives the tab width of the project's files; root is the
	// project's directory, which paths are shown relative to.
	tabs tabStops
	root string
}

// withProject returns th for the project in root with its tab widths,
// its Markdown renderer's included.
func (th theme) withProject(root string, ts tabStops) theme {
	th.tabs, th.root = ts, root
	if md, ok := th.md.(*markdownText); ok {
		md.tabs, md.blocks = ts, nil
	}
	return th
}

// newTheme returns the theme for a dark or light background, or the
// colourless one.
func newTheme(noColor, dark bool) theme {
	s := lipgloss.NewStyle
	if noColor {
		return theme{
			md:   newMarkdown(true, dark),
			name: "plain", accent: s().Bold(true), user: s(), text: s(), faint: s().Faint(true),
			reasoning: s().Faint(true).Italic(true), toolName: s().Bold(true), ok: s(), bad: s().Bold(true),
			warn: s().Bold(true), selected: s().Reverse(true), title: s().Bold(true), border: s(), code: s(),
			diffAdd: s().Bold(true), diffDel: s().Faint(true), diffHunk: s().Faint(true), lineNo: s().Faint(true),
		}
	}
	pick := lipgloss.LightDark(dark)
	c := func(light, darkColor string) color.Color {
		return pick(lipgloss.Color(light), lipgloss.Color(darkColor))
	}
	name := "light"
	if dark {
		name = "dark"
	}
	accent := c("#5B3FD9", "#A594FF")
	return theme{
		md:        newMarkdown(false, dark),
		name:      name,
		accent:    s().Foreground(accent).Bold(true),
		user:      s().Foreground(c("#1F2328", "#E6E6E6")),
		text:      s().Foreground(c("#1F2328", "#D8D8D8")),
		faint:     s().Foreground(c("#6E7781", "#8B8B8B")),
		reasoning: s().Foreground(c("#6E7781", "#8B8B8B")).Italic(true),
		toolName:  s().Foreground(c("#0969DA", "#79B8FF")).Bold(true),
		ok:        s().Foreground(c("#1A7F37", "#56D364")),
		bad:       s().Foreground(c("#CF222E", "#FF7B72")).Bold(true),
		warn:      s().Foreground(c("#9A6700", "#E3B341")).Bold(true),
		selected:  s().Foreground(c("#FFFFFF", "#101010")).Background(accent),
		title:     s().Foreground(accent).Bold(true),
		border:    s().Foreground(accent),
		code:      s().Foreground(c("#3D444D", "#C0C0C0")),
		diffAdd:   s().Foreground(c("#116329", "#AFF5B4")).Background(c("#DAFBE1", "#12361F")),
		diffDel:   s().Foreground(c("#82071E", "#FFDCD7")).Background(c("#FFEBE9", "#4A1C1F")),
		diffHunk:  s().Foreground(c("#0550AE", "#79C0FF")),
		lineNo:    s().Foreground(c("#8C959F", "#6E7681")),
	}
}

// relPath shows path relative to the project's directory when it lies
// inside it.
func relPath(root, path string) string {
	if root == "" || !filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.Clean(path)
	}
	return rel
}
