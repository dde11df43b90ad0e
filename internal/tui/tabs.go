package tui

import (
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// defaultTabWidth is how far a tab reaches when no .editorconfig says.
const defaultTabWidth = 4

// tabStops says how wide a tab is in each file of the project, from the
// .editorconfig at the project's root (tab_width, else indent_size, of
// the last section whose pattern matches the file's name). The zero value
// gives every file the default width.
type tabStops struct {
	sections []ecSection
}

type ecSection struct {
	patterns []string // the section's glob, its {a,b} alternatives expanded
	width    int
}

// loadTabStops reads dir/.editorconfig; a missing or unreadable file
// gives the default widths.
func loadTabStops(dir string) tabStops {
	if dir == "" {
		return tabStops{}
	}
	b, err := os.ReadFile(filepath.Join(dir, ".editorconfig"))
	if err != nil {
		return tabStops{}
	}
	return parseEditorConfig(string(b))
}

// parseEditorConfig reads the tab widths of an .editorconfig's sections.
func parseEditorConfig(text string) tabStops {
	var ts tabStops
	var cur *ecSection
	var tabWidth, indentSize int
	flush := func() {
		if cur == nil {
			return
		}
		w := tabWidth
		if w == 0 {
			w = indentSize
		}
		if w > 0 && w <= 16 {
			cur.width = w
			ts.sections = append(ts.sections, *cur)
		}
		cur, tabWidth, indentSize = nil, 0, 0
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case line[0] == '[' && strings.HasSuffix(line, "]"):
			flush()
			cur = &ecSection{patterns: expandBraces(line[1 : len(line)-1])}
		case cur != nil:
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				continue
			}
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				continue
			}
			switch strings.ToLower(strings.TrimSpace(k)) {
			case "tab_width":
				tabWidth = n
			case "indent_size":
				indentSize = n
			}
		}
	}
	flush()
	return ts
}

// expandBraces turns "*.{go,mod}" into "*.go" and "*.mod" (one level).
func expandBraces(glob string) []string {
	i := strings.IndexByte(glob, '{')
	j := strings.IndexByte(glob, '}')
	if i < 0 || j < i {
		return []string{glob}
	}
	var out []string
	for _, alt := range strings.Split(glob[i+1:j], ",") {
		out = append(out, glob[:i]+alt+glob[j+1:])
	}
	return out
}

// width is the tab width for the file at name (a path or a base name);
// "" gives the width of the catch-all section, or the default.
func (ts tabStops) width(name string) int {
	w := defaultTabWidth
	base := path.Base(filepath.ToSlash(name))
	for _, s := range ts.sections {
		for _, p := range s.patterns {
			target := base
			if strings.Contains(p, "/") {
				target = strings.TrimPrefix(filepath.ToSlash(name), "/")
				p = strings.TrimPrefix(p, "/")
			}
			if ok, _ := path.Match(p, target); ok || p == "*" || p == "**" {
				w = s.width
				break
			}
		}
	}
	return w
}

// forLang is the tab width for a code block in language lang.
func (ts tabStops) forLang(lang string) int {
	ext := strings.ToLower(lang)
	switch ext {
	case "python":
		ext = "py"
	case "rust":
		ext = "rs"
	case "javascript":
		ext = "js"
	case "typescript":
		ext = "ts"
	case "ruby":
		ext = "rb"
	case "bash", "shell", "zsh":
		ext = "sh"
	case "make", "makefile":
		return ts.width("Makefile")
	case "":
		return ts.width("")
	}
	return ts.width("file." + ext)
}

// expandTabsTo replaces tabs by spaces up to the next multiple of width.
func expandTabsTo(s string, width int) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	if width < 1 {
		width = defaultTabWidth
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		switch r {
		case '\t':
			n := width - col%width
			b.WriteString(strings.Repeat(" ", n))
			col += n
		case '\n':
			b.WriteRune(r)
			col = 0
		default:
			b.WriteRune(r)
			col++
		}
	}
	return b.String()
}

// expandCodeTabs expands the tabs of a Markdown block: inside a fenced
// code block to the width of its language, elsewhere to the default.
func expandCodeTabs(block string, ts tabStops) string {
	if !strings.Contains(block, "\t") {
		return block
	}
	ls := strings.Split(block, "\n")
	fence, width := "", defaultTabWidth
	for i, l := range ls {
		trimmed := strings.TrimLeft(l, " ")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) && strings.TrimSpace(strings.TrimLeft(trimmed, fence[:1])) == "" {
				fence = ""
				continue
			}
			ls[i] = expandTabsTo(l, width)
			continue
		}
		if f := fenceOf(trimmed); f != "" {
			fence = f
			lang := ""
			if fs := strings.Fields(trimmed[len(f):]); len(fs) > 0 {
				lang = fs[0]
			}
			width = ts.forLang(lang)
			continue
		}
		ls[i] = expandTabsTo(l, defaultTabWidth)
	}
	return strings.Join(ls, "\n")
}
