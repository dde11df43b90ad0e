package tool

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// span is a byte range [start, end) of a file's content.
type span struct{ start, end int }

// replacer is one strategy for finding the text the model meant by
// oldString. It returns every place it matches.
type replacer struct {
	name string
	find func(content, find string) []span
}

// replacers returns the strategies in the order they are tried; the first
// that finds anything decides. The last, every exact occurrence, can only
// matter to callers that skip the others; it keeps OpenCode's order.
func replacers() []replacer {
	return []replacer{
		{"simple", simpleSpans},
		{"line-trimmed", lineTrimmedSpans},
		{"block-anchor", blockAnchorSpans},
		{"whitespace-normalized", whitespaceNormalizedSpans},
		{"indentation-flexible", indentationFlexibleSpans},
		{"escape-normalized", escapeNormalizedSpans},
		{"trimmed-boundary", trimmedBoundarySpans},
		{"context-aware", contextAwareSpans},
		{"multi-occurrence", simpleSpans},
	}
}

// EditError is an edit the tool could not make, worded for the model.
type EditError struct{ Msg string }

func (e *EditError) Error() string { return e.Msg }

// replace returns content with the text oldString stands for replaced by
// newString. Strategies are tried from exact to forgiving; the first one
// that matches decides. It must match exactly once, unless replaceAll, in
// which case every place it matched is replaced. It also reports which
// strategy matched.
func replace(content, oldString, newString string, replaceAll bool) (string, string, error) {
	if oldString == newString {
		return "", "", &EditError{"No changes to apply: oldString and newString are identical."}
	}
	for _, r := range replacers() {
		spans := dedupe(r.find(content, oldString))
		if len(spans) == 0 {
			continue
		}
		if len(spans) > 1 && !replaceAll {
			lines := make([]string, len(spans))
			for i, s := range spans {
				lines[i] = fmt.Sprint(lineOf(content, s.start))
			}
			return "", r.name, &EditError{fmt.Sprintf(
				"Found %d matches for oldString in the file (at lines %s). Include more of the surrounding lines in oldString so that it matches exactly one place, or set replaceAll to change every match.",
				len(spans), strings.Join(lines, ", "))}
		}
		var b strings.Builder
		prev := 0
		for _, s := range spans {
			b.WriteString(content[prev:s.start])
			b.WriteString(newString)
			prev = s.end
		}
		b.WriteString(content[prev:])
		return b.String(), r.name, nil
	}
	return "", "", &EditError{"Could not find oldString in the file. It must match the file's text exactly, including whitespace and indentation; read the file again to see its current content."}
}

// dedupe sorts spans and drops repeated and overlapping ones (the earlier
// one wins).
func dedupe(spans []span) []span {
	slices.SortFunc(spans, func(a, b span) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return a.end - b.end
	})
	out := spans[:0]
	for _, s := range spans {
		if len(out) > 0 && s.start < out[len(out)-1].end {
			continue
		}
		if len(out) > 0 && s == out[len(out)-1] {
			continue
		}
		out = append(out, s)
	}
	return out
}

// lineOf is the 1-based line number of byte offset off.
func lineOf(content string, off int) int { return strings.Count(content[:off], "\n") + 1 }

// lines splits content into lines with their start offsets; a line's text
// excludes its "\n" and a "\r" before it.
type line struct {
	start int
	text  string
}

func splitLines(content string) []line {
	var out []line
	start := 0
	for {
		i := strings.IndexByte(content[start:], '\n')
		if i < 0 {
			out = append(out, line{start, strings.TrimSuffix(content[start:], "\r")})
			return out
		}
		out = append(out, line{start, strings.TrimSuffix(content[start:start+i], "\r")})
		start += i + 1
	}
}

// blockSpan is the span of lines[i..j] inclusive.
func blockSpan(ls []line, i, j int) span {
	return span{ls[i].start, ls[j].start + len(ls[j].text)}
}

func blockText(ls []line, i, n int) string {
	parts := make([]string, n)
	for k := range n {
		parts[k] = ls[i+k].text
	}
	return strings.Join(parts, "\n")
}

// findLines splits oldString into lines, dropping one trailing empty line
// (oldString ending in a newline).
func findLines(find string) []string {
	fl := strings.Split(strings.ReplaceAll(find, "\r\n", "\n"), "\n")
	if len(fl) > 1 && fl[len(fl)-1] == "" {
		fl = fl[:len(fl)-1]
	}
	return fl
}

// allIndex returns every non-overlapping occurrence of s in content.
func allIndex(content, s string) []span {
	if s == "" {
		return nil
	}
	var out []span
	for off := 0; ; {
		i := strings.Index(content[off:], s)
		if i < 0 {
			return out
		}
		out = append(out, span{off + i, off + i + len(s)})
		off += i + len(s)
	}
}

// simpleSpans finds oldString exactly.
func simpleSpans(content, find string) []span { return allIndex(content, find) }

// lineTrimmedSpans finds blocks of whole lines equal to oldString's lines
// once leading and trailing whitespace is ignored on each line.
func lineTrimmedSpans(content, find string) []span {
	fl := findLines(find)
	ls := splitLines(content)
	var out []span
	for i := 0; i+len(fl) <= len(ls); i++ {
		ok := true
		for j := range fl {
			if strings.TrimSpace(ls[i+j].text) != strings.TrimSpace(fl[j]) {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, blockSpan(ls, i, i+len(fl)-1))
		}
	}
	return out
}

// Block-anchor limits: the block found may differ in size from oldString by
// blockSizeSlack (at least one line), and its middle lines must be this
// similar on average.
const (
	blockSizeSlack     = 0.25
	blockMinSimilarity = 0.65
)

// blockAnchorSpans finds blocks of three or more lines whose first and last
// lines equal oldString's (trimmed), whose size is close to oldString's and
// whose middle lines are similar to it.
func blockAnchorSpans(content, find string) []span {
	fl := findLines(find)
	if len(fl) < 3 {
		return nil
	}
	first, last := strings.TrimSpace(fl[0]), strings.TrimSpace(fl[len(fl)-1])
	slack := max(1, int(float64(len(fl))*blockSizeSlack))
	ls := splitLines(content)
	var out []span
	for i := range ls {
		if strings.TrimSpace(ls[i].text) != first {
			continue
		}
		for j := i + 2; j < len(ls); j++ {
			if strings.TrimSpace(ls[j].text) != last {
				continue
			}
			size := j - i + 1
			if size >= len(fl)-slack && size <= len(fl)+slack && middleSimilarity(ls[i+1:j], fl[1:len(fl)-1]) >= blockMinSimilarity {
				out = append(out, blockSpan(ls, i, j))
			}
			break
		}
	}
	return out
}

// middleSimilarity scores how alike the middle lines of a block are to
// those of oldString, from 0 to 1: each wanted line counts with its best
// similarity (one minus the edit distance relative to the longer line, both
// trimmed) to a block line near the same position, and the sum is divided
// by the longer side's line count, so that missing or extra lines lower the
// score. With no middle lines on either side the anchors alone decide.
func middleSimilarity(got []line, want []string) float64 {
	if len(got) == 0 && len(want) == 0 {
		return 1
	}
	slack := max(1, len(want)/4, len(got)-len(want), len(want)-len(got))
	total := 0.0
	for k, w := range want {
		w = strings.TrimSpace(w)
		best := 0.0
		for j := max(0, k-slack); j < len(got) && j <= k+slack; j++ {
			best = max(best, similarity(strings.TrimSpace(got[j].text), w))
		}
		total += best
	}
	return total / float64(max(len(got), len(want)))
}

// similarity is one minus the edit distance of a and b relative to the
// longer of them; two empty strings are alike.
func similarity(a, b string) float64 {
	longest := max(len([]rune(a)), len([]rune(b)))
	if longest == 0 {
		return 1
	}
	return 1 - float64(levenshtein(a, b))/float64(longest)
}

// levenshtein is the edit distance between a and b in runes.
func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

func normalizeSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// wordRuns returns the non-overlapping spans of s, leftmost first, where
// words appear in order separated by runs of ASCII white space, as the
// pattern word1\s+word2… would match. It works on bytes, so text that is
// not valid UTF-8 is searched like any other.
func wordRuns(s string, words []string) []span {
	if len(words) == 0 || words[0] == "" {
		return nil
	}
	var out []span
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], words[0])
		if j < 0 {
			break
		}
		start := i + j
		if end, ok := matchRun(s, start+len(words[0]), words[1:]); ok {
			out = append(out, span{start, end})
			i = max(end, start+1)
			continue
		}
		i = start + 1
	}
	return out
}

// matchRun matches whitespace then each of words at s[pos:], returning
// where the match ends.
func matchRun(s string, pos int, words []string) (int, bool) {
	for _, w := range words {
		n := pos
		for n < len(s) && asciiSpace(s[n]) {
			n++
		}
		if n == pos || !strings.HasPrefix(s[n:], w) {
			return 0, false
		}
		pos = n + len(w)
	}
	return pos, true
}

// asciiSpace reports whether b is white space as \s means it in Go's
// regular expressions.
func asciiSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\f' || b == '\r'
}

// whitespaceNormalizedSpans finds oldString with every run of whitespace
// treated as one space: inside a single line, or as a block of lines.
func whitespaceNormalizedSpans(content, find string) []span {
	want := normalizeSpace(find)
	if want == "" {
		return nil
	}
	ls := splitLines(content)
	var out []span
	fl := findLines(find)
	if len(fl) == 1 {
		words := strings.Fields(find)
		for _, l := range ls {
			norm := normalizeSpace(l.text)
			if norm == want {
				out = append(out, span{l.start, l.start + len(l.text)})
				continue
			}
			if strings.Contains(norm, want) {
				for _, m := range wordRuns(l.text, words) {
					out = append(out, span{l.start + m.start, l.start + m.end})
				}
			}
		}
		return out
	}
	for i := 0; i+len(fl) <= len(ls); i++ {
		if normalizeSpace(blockText(ls, i, len(fl))) == want {
			out = append(out, blockSpan(ls, i, i+len(fl)-1))
		}
	}
	return out
}

// dedent removes the indentation the non-blank lines have in common.
func dedent(ls []string) string {
	common := -1
	for _, l := range ls {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeftFunc(l, unicode.IsSpace))
		if common < 0 || n < common {
			common = n
		}
	}
	out := make([]string, len(ls))
	for i, l := range ls {
		if strings.TrimSpace(l) == "" || common <= 0 {
			out[i] = l
			continue
		}
		out[i] = l[common:]
	}
	return strings.Join(out, "\n")
}

// indentationFlexibleSpans finds blocks equal to oldString once each side's
// common indentation is removed.
func indentationFlexibleSpans(content, find string) []span {
	fl := findLines(find)
	want := dedent(fl)
	ls := splitLines(content)
	var out []span
	for i := 0; i+len(fl) <= len(ls); i++ {
		block := make([]string, len(fl))
		for k := range fl {
			block[k] = ls[i+k].text
		}
		if dedent(block) == want {
			out = append(out, blockSpan(ls, i, i+len(fl)-1))
		}
	}
	return out
}

// unescape turns the escapes a model may have written literally (\n, \t,
// \", \\ ...) into the characters they stand for.
func unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch c := s[i+1]; c {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '\'', '"', '`', '\\', '$', '\n':
			b.WriteByte(c)
		default:
			b.WriteByte('\\')
			continue
		}
		i++
	}
	return b.String()
}

// escapeNormalizedSpans finds oldString with its escape sequences read as
// the characters they stand for, in the file as it is or in a block of the
// file read the same way.
func escapeNormalizedSpans(content, find string) []span {
	want := unescape(find)
	out := allIndex(content, want)
	fl := strings.Split(want, "\n")
	ls := splitLines(content)
	for i := 0; i+len(fl) <= len(ls); i++ {
		if unescape(blockText(ls, i, len(fl))) == want {
			out = append(out, blockSpan(ls, i, i+len(fl)-1))
		}
	}
	return out
}

// trimmedBoundarySpans finds oldString without the whitespace around it.
func trimmedBoundarySpans(content, find string) []span {
	want := strings.TrimSpace(find)
	if want == find || want == "" {
		return nil
	}
	out := allIndex(content, want)
	fl := strings.Split(find, "\n")
	ls := splitLines(content)
	for i := 0; i+len(fl) <= len(ls); i++ {
		block := blockSpan(ls, i, i+len(fl)-1)
		text := content[block.start:block.end]
		if strings.TrimSpace(text) == want {
			lead := len(text) - len(strings.TrimLeftFunc(text, unicode.IsSpace))
			trail := len(text) - len(strings.TrimRightFunc(text, unicode.IsSpace))
			out = append(out, span{block.start + lead, block.end - trail})
		}
	}
	return out
}

// contextAwareSpans finds blocks of the same number of lines as oldString
// (three or more) whose first and last lines match it and at least half of
// whose other non-blank lines match it, all trimmed.
func contextAwareSpans(content, find string) []span {
	fl := findLines(find)
	if len(fl) < 3 {
		return nil
	}
	first, last := strings.TrimSpace(fl[0]), strings.TrimSpace(fl[len(fl)-1])
	ls := splitLines(content)
	var out []span
	for i := range ls {
		if strings.TrimSpace(ls[i].text) != first {
			continue
		}
		j := i + len(fl) - 1
		if j >= len(ls) || strings.TrimSpace(ls[j].text) != last {
			continue
		}
		same, counted := 0, 0
		for k := 1; k < len(fl)-1; k++ {
			a, b := strings.TrimSpace(ls[i+k].text), strings.TrimSpace(fl[k])
			if a == "" && b == "" {
				continue
			}
			counted++
			if a == b {
				same++
			}
		}
		if counted == 0 || same*2 >= counted {
			out = append(out, blockSpan(ls, i, j))
		}
	}
	return out
}
