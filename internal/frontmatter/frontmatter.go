// Package frontmatter splits a Markdown document into its YAML frontmatter
// and body, and decodes the frontmatter. Skills, agents and commands written
// as Markdown files use it.
//
// It imports nothing of codeloop's; any package may import it.
package frontmatter

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ErrUnclosed reports a document that opens a frontmatter block with a
// "---" line and never closes it.
var ErrUnclosed = errors.New("the frontmatter opened by --- on the first line is never closed by a --- line")

var bom = []byte("\xef\xbb\xbf")

// Split separates src into its frontmatter and body. A frontmatter block
// starts on the first line (after an optional UTF-8 byte order mark) with a
// line holding only "---" and ends at the next line holding only "---" or
// "..."; trailing spaces and tabs on either delimiter line and CRLF line
// endings are accepted. front is the text between the delimiter lines and
// body everything after the closing line; both alias src.
//
// Without an opening line, found is false and body is src without the byte
// order mark. An opening line without a closing one returns ErrUnclosed.
func Split(src []byte) (front, body []byte, found bool, err error) {
	src = bytes.TrimPrefix(src, bom)
	first, rest, ok := cutLine(src)
	if !ok || !isDelimiter(first, false) {
		return nil, src, false, nil
	}
	start := len(src) - len(rest)
	pos := start
	for pos < len(src) {
		line, after, _ := cutLine(src[pos:])
		if isDelimiter(line, true) {
			return src[start:pos], after, true, nil
		}
		pos = len(src) - len(after)
	}
	return nil, nil, true, ErrUnclosed
}

// cutLine returns the first line of b without its line ending, the rest
// after the line ending, and whether the line ended with a newline.
func cutLine(b []byte) (line, rest []byte, newline bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return b, b[len(b):], false
	}
	return bytes.TrimSuffix(b[:i], []byte("\r")), b[i+1:], true
}

// isDelimiter reports whether line is "---" (or, when closing, "...")
// followed by nothing but spaces and tabs.
func isDelimiter(line []byte, closing bool) bool {
	line = bytes.TrimRight(line, " \t")
	return string(line) == "---" || (closing && string(line) == "...")
}

// Join is the inverse of Split: it writes front between delimiter lines,
// followed by body. A front that does not end with a newline gets one.
func Join(front, body []byte) []byte {
	var b bytes.Buffer
	b.Grow(len(front) + len(body) + 9)
	b.WriteString("---\n")
	b.Write(front)
	if len(front) > 0 && front[len(front)-1] != '\n' {
		b.WriteByte('\n')
	}
	b.WriteString("---\n")
	b.Write(body)
	return b.Bytes()
}

// Parse splits src and decodes its frontmatter into v (a pointer, as for
// yaml.Unmarshal). It returns the body; a document without frontmatter
// leaves v untouched.
//
// Frontmatter written by hand often has unquoted values that contain ": "
// ("description: Use when: the tests fail"), which strict YAML rejects.
// When decoding fails, Parse quotes such top-level values and tries once
// more; the original error is returned if that fails too.
func Parse(src []byte, v any) (body []byte, err error) {
	front, body, found, err := Split(src)
	if err != nil {
		return nil, err
	}
	if !found {
		return body, nil
	}
	if err := yaml.Unmarshal(front, v); err != nil {
		fixed, changed := quoteColonValues(front)
		if !changed || yaml.Unmarshal(fixed, v) != nil {
			return nil, fmt.Errorf("invalid YAML in frontmatter: %w", err)
		}
	}
	return body, nil
}

// quoteColonValues rewrites top-level "key: value" lines whose plain value
// contains ": " or ends with ":" as single-quoted scalars.
func quoteColonValues(front []byte) ([]byte, bool) {
	lines := strings.Split(string(front), "\n")
	changed := false
	for i, line := range lines {
		if line == "" || line[0] == ' ' || line[0] == '\t' || line[0] == '#' || line[0] == '-' {
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok || strings.ContainsAny(key, " \t\"'") || !strings.HasPrefix(value, " ") {
			continue
		}
		value = strings.TrimSpace(strings.TrimSuffix(value, "\r"))
		if value == "" || strings.ContainsRune("'\"|>[{&*!%@`", rune(value[0])) {
			continue
		}
		if !strings.Contains(value, ": ") && !strings.HasSuffix(value, ":") {
			continue
		}
		lines[i] = key + ": '" + strings.ReplaceAll(value, "'", "''") + "'"
		changed = true
	}
	return []byte(strings.Join(lines, "\n")), changed
}
