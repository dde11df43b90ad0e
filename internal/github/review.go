package github

import (
	"regexp"
	"strconv"
	"strings"
)

// ReviewComment is an inline comment of a review: a line of the pull
// request's new version of a file.
type ReviewComment struct {
	Path string
	Line int
	Body string
}

// reviewLine matches "path:line: comment", with the decorations a model
// adds: a list marker, backquotes or bold around the location, a line
// range ("12-14", the last line is commented) and a dash instead of the
// second colon.
var reviewLine = regexp.MustCompile("^\\s*(?:[-*+]|\\d+\\.)?\\s*(?:\\*\\*|`)?([^\\s:`*]+?):(\\d+)(?:-(\\d+))?(?:\\*\\*|`)?\\s*(?::|-|–|—)\\s*(.+?)\\s*$")

// ParseReview splits a model's review into its summary and its inline
// comments. Lines of the form "path:line: comment" are comments; the other
// lines, trimmed, are the summary. A comment on a path that is not a
// plausible file name (a URL, a time of day) stays in the summary.
func ParseReview(text string) (summary string, comments []ReviewComment) {
	var rest []string
	inFence := false
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			rest = append(rest, line)
			continue
		}
		m := reviewLine.FindStringSubmatch(line)
		if inFence || m == nil || !plausiblePath(m[1]) {
			rest = append(rest, line)
			continue
		}
		n, err := strconv.Atoi(m[2])
		if m[3] != "" {
			if end, err2 := strconv.Atoi(m[3]); err2 == nil && end >= n {
				n = end
			}
		}
		if err != nil || n <= 0 {
			rest = append(rest, line)
			continue
		}
		comments = append(comments, ReviewComment{Path: strings.TrimPrefix(m[1], "./"), Line: n, Body: m[4]})
	}
	return strings.TrimSpace(strings.Join(rest, "\n")), comments
}

func plausiblePath(p string) bool {
	if strings.Contains(p, "://") || strings.HasPrefix(p, "/") || strings.HasPrefix(p, "http") {
		return false
	}
	// A file has a name with a dot or lives in a directory; "Note:12"
	// and "10:30" are not files.
	return strings.ContainsAny(p, "./") && strings.IndexFunc(p, func(r rune) bool { return r < ' ' }) < 0
}

// DiffLines maps each file of a unified diff to the lines of its new
// version that the diff shows (added and context lines): the only lines
// GitHub accepts inline comments on.
func DiffLines(diff string) map[string]map[int]bool {
	out := map[string]map[int]bool{}
	var file string
	line := 0
	for _, l := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "+++ "):
			file = strings.TrimPrefix(strings.TrimPrefix(l, "+++ "), "b/")
			if file == "/dev/null" {
				file = ""
			}
			line = 0
		case strings.HasPrefix(l, "--- "), strings.HasPrefix(l, "diff "), strings.HasPrefix(l, "index "):
		case strings.HasPrefix(l, "@@"):
			// @@ -a,b +c,d @@
			f := strings.Fields(l)
			if len(f) < 3 {
				continue
			}
			start, _, _ := strings.Cut(strings.TrimPrefix(f[2], "+"), ",")
			line, _ = strconv.Atoi(start)
		case file == "" || line == 0:
		case strings.HasPrefix(l, "+"), strings.HasPrefix(l, " "):
			if out[file] == nil {
				out[file] = map[int]bool{}
			}
			out[file][line] = true
			line++
		}
	}
	return out
}

// SplitComments keeps the comments on lines the diff shows and moves the
// others into the summary as text, so that the review is accepted whole.
func SplitComments(summary string, comments []ReviewComment, lines map[string]map[int]bool) (string, []ReviewComment) {
	var keep []ReviewComment
	var moved []string
	for _, c := range comments {
		if lines[c.Path][c.Line] {
			keep = append(keep, c)
			continue
		}
		moved = append(moved, "- `"+c.Path+":"+strconv.Itoa(c.Line)+"`: "+c.Body)
	}
	if len(moved) > 0 {
		if summary != "" {
			summary += "\n\n"
		}
		summary += "Comments on lines outside the diff:\n" + strings.Join(moved, "\n")
	}
	return summary, keep
}
