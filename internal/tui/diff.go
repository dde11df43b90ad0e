package tui

import (
	"fmt"
	"strconv"
	"strings"
)

// sideBySideWidth is the narrowest view that shows a diff's two sides
// next to each other; narrower views show it unified.
const sideBySideWidth = 120

// diffLine is a line of a unified diff: ' ' context, '-' removed, '+'
// added, '@' a hunk's header, 'f' a file's name.
type diffLine struct {
	kind     byte
	text     string
	old, new int // line numbers, 0 when the side has none
}

// parseDiff reads a unified diff (one file or several) into lines.
func parseDiff(patch string) []diffLine {
	var out []diffLine
	oldN, newN := 0, 0
	for _, l := range strings.Split(strings.TrimRight(patch, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "Index:"), strings.HasPrefix(l, "===="), strings.HasPrefix(l, "diff "):
		case strings.HasPrefix(l, "--- "):
		case strings.HasPrefix(l, "+++ "):
			name := strings.TrimSpace(strings.TrimPrefix(l, "+++ "))
			name = strings.TrimPrefix(strings.TrimPrefix(name, "b/"), "a/")
			if name != "/dev/null" {
				out = append(out, diffLine{kind: 'f', text: name})
			}
		case strings.HasPrefix(l, "@@"):
			oldN, newN = hunkStart(l)
			out = append(out, diffLine{kind: '@', text: l})
		case strings.HasPrefix(l, "-"):
			out = append(out, diffLine{kind: '-', text: l[1:], old: oldN})
			oldN++
		case strings.HasPrefix(l, "+"):
			out = append(out, diffLine{kind: '+', text: l[1:], new: newN})
			newN++
		case strings.HasPrefix(l, `\`):
		default:
			if oldN == 0 && newN == 0 {
				continue // text before the first hunk
			}
			out = append(out, diffLine{kind: ' ', text: strings.TrimPrefix(l, " "), old: oldN, new: newN})
			oldN++
			newN++
		}
	}
	return out
}

// hunkStart reads the first line numbers of "@@ -a,b +c,d @@".
func hunkStart(h string) (int, int) {
	f := strings.Fields(h)
	num := func(s string) int {
		s = strings.TrimLeft(s, "-+")
		s, _, _ = strings.Cut(s, ",")
		n, _ := strconv.Atoi(s)
		return max(n, 1)
	}
	if len(f) < 3 {
		return 1, 1
	}
	return num(f[1]), num(f[2])
}

// diffStat counts a diff's added and removed lines.
func diffStat(lines []diffLine) (add, del int) {
	for _, l := range lines {
		switch l.kind {
		case '+':
			add++
		case '-':
			del++
		}
	}
	return add, del
}

// renderDiff draws a diff in width cells: side by side when the screen
// (screenWidth cells) is at least sideBySideWidth wide, unified below.
func renderDiff(lines []diffLine, width, screenWidth int, th *theme) []string {
	lines = tidyDiff(lines)
	numW := 1
	for _, l := range lines {
		numW = max(numW, len(strconv.Itoa(max(l.old, l.new))))
	}
	if screenWidth >= sideBySideWidth {
		return sideBySide(lines, width, numW, th)
	}
	return unified(lines, width, numW, th)
}

// tidyDiff leaves out the file's name when the diff changes one file
// (the call's line names it) and the mark before a file's first hunk:
// marks separate hunks.
func tidyDiff(lines []diffLine) []diffLine {
	files := 0
	for _, l := range lines {
		if l.kind == 'f' {
			files++
		}
	}
	out := make([]diffLine, 0, len(lines))
	for i, l := range lines {
		switch {
		case l.kind == 'f' && files <= 1:
			continue
		case l.kind == '@' && (i == 0 || lines[i-1].kind == 'f'):
			continue
		}
		out = append(out, l)
	}
	return out
}

func unified(lines []diffLine, width, numW int, th *theme) []string {
	var out []string
	textW := max(width-2*numW-4, 1)
	for _, l := range lines {
		switch l.kind {
		case 'f':
			out = append(out, th.toolName.Render(truncate(l.text, width)))
		case '@':
			out = append(out, th.diffHunk.Render(truncate(hunkLabel(l.text), width)))
		default:
			nums := numCell(l.old, numW) + " " + numCell(l.new, numW)
			out = append(out, th.lineNo.Render(nums)+" "+diffBody(l.kind, l.text, textW, th))
		}
	}
	return out
}

// sideBySide puts the old text on the left and the new on the right: a
// run of removed lines faces the run of added lines that follows it.
func sideBySide(lines []diffLine, width, numW int, th *theme) []string {
	colW := (width - 1) / 2
	textW := max(colW-numW-3, 1)
	cell := func(l *diffLine) string {
		if l == nil {
			return padRight("", colW)
		}
		n := l.old
		if l.kind == '+' {
			n = l.new
		}
		return th.lineNo.Render(numCell(n, numW)) + " " + diffBody(l.kind, l.text, textW, th)
	}
	var out []string
	for i := 0; i < len(lines); {
		l := lines[i]
		switch l.kind {
		case 'f':
			out = append(out, th.toolName.Render(truncate(l.text, width)))
			i++
			continue
		case '@':
			out = append(out, th.diffHunk.Render(truncate(hunkLabel(l.text), width)))
			i++
			continue
		case ' ':
			out = append(out, cell(&lines[i])+th.faint.Render("│")+cell(&lines[i]))
			i++
			continue
		}
		// A run of changes: the removed lines, then the added ones.
		var dels, adds []*diffLine
		for ; i < len(lines) && lines[i].kind == '-'; i++ {
			dels = append(dels, &lines[i])
		}
		for ; i < len(lines) && lines[i].kind == '+'; i++ {
			adds = append(adds, &lines[i])
		}
		for j := 0; j < max(len(dels), len(adds)); j++ {
			var left, right *diffLine
			if j < len(dels) {
				left = dels[j]
			}
			if j < len(adds) {
				right = adds[j]
			}
			out = append(out, cell(left)+th.faint.Render("│")+cell(right))
		}
	}
	return out
}

// diffBody is a line's sign and text in width cells, coloured by kind.
func diffBody(kind byte, text string, width int, th *theme) string {
	body := padRight(truncate(string(kind)+" "+expandTabs(text), width), width)
	switch kind {
	case '+':
		return th.diffAdd.Render(body)
	case '-':
		return th.diffDel.Render(body)
	}
	return th.code.Render(body)
}

func numCell(n, w int) string {
	if n == 0 {
		return strings.Repeat(" ", w)
	}
	return fmt.Sprintf("%*d", w, n)
}

// hunkLabel shortens "@@ -12,7 +12,8 @@ func f()" to "@@ 12 @@ func f()"
// style text: the line numbers are in the gutter already.
func hunkLabel(h string) string {
	if i := strings.Index(h[min(2, len(h)):], "@@"); i >= 0 {
		rest := strings.TrimSpace(h[i+4:])
		if rest != "" {
			return "⋯ " + rest
		}
	}
	return "⋯"
}
