package config

import (
	"fmt"
	"strings"
)

// Error is a problem in a config file, located by file, line and column
// (both 1-based; zero when unknown).
type Error struct {
	File       string // the file, or the environment variable the text came from
	Line, Col  int
	Key        string // the offending key, when there is one
	Msg        string
	Suggestion string // the closest valid key, when Key is unknown
}

// Error formats the problem as file:line:col: message.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	if e.Suggestion != "" {
		fmt.Fprintf(&b, " (did you mean %q?)", e.Suggestion)
	}
	return b.String()
}
