package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

var (
	envToken  = regexp.MustCompile(`\{env:([^}]+)\}`)
	fileToken = regexp.MustCompile(`\{file:([^}]+)\}`)
)

// source is the text of one config file: the original bytes, the bytes after
// substitution, and the map from offsets in the latter to the former.
type source struct {
	name string // file path, or the environment variable it came from
	orig []byte
	text []byte
	// edits are the substitutions made, in text order, each as the span it
	// replaced in the previous text and the span of its replacement.
	passes [][]edit
}

type edit struct {
	oldStart, oldEnd int
	newStart, newEnd int
}

// origin maps an offset in s.text to the offset in s.orig it came from;
// an offset inside a replacement maps to the start of the token replaced.
func (s *source) origin(n int) int {
	for i := len(s.passes) - 1; i >= 0; i-- {
		n = mapBack(s.passes[i], n)
	}
	return n
}

func mapBack(edits []edit, n int) int {
	shift := 0
	for _, e := range edits {
		if n < e.newStart {
			break
		}
		if n < e.newEnd {
			return e.oldStart
		}
		shift = e.oldEnd - e.newEnd
	}
	return n + shift
}

// position returns the 1-based line and column in the original text of the
// offset n of the substituted text.
func (s *source) position(n int) (line, col int) {
	return lineCol(s.orig, s.origin(n))
}

// lineCol returns the 1-based line and column (in bytes) of offset n of b.
func lineCol(b []byte, n int) (line, col int) {
	n = max(0, min(n, len(b)))
	line = 1 + bytes.Count(b[:n], []byte("\n"))
	col = 1 + n - (bytes.LastIndexByte(b[:n], '\n') + 1)
	return line, col
}

// errAt builds an *Error located at offset n of the substituted text.
func (s *source) errAt(n int, key, msg string) *Error {
	line, col := s.position(n)
	return &Error{File: s.name, Line: line, Col: col, Key: key, Msg: msg}
}

// substitute replaces {env:VAR} with the variable's value (empty when unset)
// and then {file:path} with the file's trimmed content, escaped for a JSON
// string. Paths are relative to dir; ~/ means the home directory. {file:}
// on a line that starts with // is left alone. With none, both kinds of
// token are replaced by nothing.
func (s *source) substitute(getenv func(string) string, dir, home string, none bool) error {
	s.text = s.orig
	if none {
		getenv = func(string) string { return "" }
	}
	var edits []edit
	s.text = replaceTokens(s.text, envToken, &edits, func(m []int, text []byte) ([]byte, error) {
		return []byte(getenv(strings.TrimSpace(string(text[m[2]:m[3]])))), nil
	})
	s.passes = append(s.passes, edits)
	edits = nil
	var err error
	s.text = replaceTokens(s.text, fileToken, &edits, func(m []int, text []byte) ([]byte, error) {
		if err != nil || inLineComment(text, m[0]) {
			return nil, errSkip
		}
		if none {
			return nil, nil
		}
		name := strings.TrimSpace(string(text[m[2]:m[3]]))
		p := name
		switch {
		case strings.HasPrefix(p, "~/"):
			p = filepath.Join(home, p[2:])
		case !filepath.IsAbs(p):
			p = filepath.Join(dir, p)
		}
		data, rerr := os.ReadFile(p)
		if rerr != nil {
			line, col := lineCol(s.orig, s.origin(m[0]))
			msg := fmt.Sprintf("{file:%s}: %v", name, rerr)
			if errors.Is(rerr, fs.ErrNotExist) {
				msg = fmt.Sprintf("{file:%s}: file %s does not exist", name, p)
			}
			err = &Error{File: s.name, Line: line, Col: col, Msg: msg}
			return nil, errSkip
		}
		quoted, _ := json.Marshal(strings.TrimSpace(string(data))) // a string always marshals
		return quoted[1 : len(quoted)-1], nil
	})
	// The file pass maps back through the env pass; record it even on error
	// so positions stay right.
	s.passes = append(s.passes, edits)
	return err
}

var errSkip = errors.New("skip")

// replaceTokens replaces each match of re in text with what fn returns for
// it, recording the edits; a match for which fn returns an error is kept.
func replaceTokens(text []byte, re *regexp.Regexp, edits *[]edit, fn func(m []int, text []byte) ([]byte, error)) []byte {
	matches := re.FindAllSubmatchIndex(text, -1)
	if len(matches) == 0 {
		return text
	}
	var out []byte
	last := 0
	for _, m := range matches {
		repl, err := fn(m, text)
		if err != nil {
			continue
		}
		out = append(out, text[last:m[0]]...)
		start := len(out)
		out = append(out, repl...)
		*edits = append(*edits, edit{oldStart: m[0], oldEnd: m[1], newStart: start, newEnd: len(out)})
		last = m[1]
	}
	return append(out, text[last:]...)
}

// inLineComment reports whether the line holding offset n starts with //.
func inLineComment(text []byte, n int) bool {
	start := bytes.LastIndexByte(text[:n], '\n') + 1
	return bytes.HasPrefix(bytes.TrimLeft(text[start:n], " \t\r"), []byte("//"))
}
