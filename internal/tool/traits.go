package tool

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Kind is what a tool does, for front ends that show calls by kind.
type Kind string

// The kinds of tools.
const (
	KindRead    Kind = "read"    // reads files
	KindEdit    Kind = "edit"    // changes files it names
	KindDelete  Kind = "delete"  // removes files it names
	KindMove    Kind = "move"    // moves files it names
	KindExecute Kind = "execute" // runs commands
	KindSearch  Kind = "search"  // finds files or text
	KindFetch   Kind = "fetch"   // reads from the network
	KindThink   Kind = "think"   // plans, delegates or asks
	KindOther   Kind = "other"
)

// Traits describe a tool to the engine and the front ends, so that none
// of them needs to know tools by their ids or their arguments by name.
type Traits struct {
	Kind Kind
	// Contained says the tool changes no file except those it names to
	// Env.BeforeChange, so nothing needs to scan the project around its
	// calls to know what they changed. Commands, MCP and custom tools are
	// not contained.
	Contained bool
}

// Touch is a file a call reads or changes.
type Touch struct {
	Path  string // absolute
	Line  int    // the first line read, when known; 0 otherwise
	Write bool   // the call changes the file
}

// Describer is a tool that describes itself; Describe, Touches and
// Summary fall back to an uncontained tool of KindOther touching nothing,
// summarised by its arguments, for others.
type Describer interface {
	Traits() Traits
	// Touches returns the files a call with these arguments reads or
	// changes, relative paths resolved against dir; nil when they cannot
	// be known from the arguments.
	Touches(input json.RawMessage, dir string) []Touch
	// Summary says in a few words what a call with these arguments works
	// on (the command, the file relative to dir, the pattern), for a
	// front end's line about the call; "" when the arguments do not say.
	Summary(input json.RawMessage, dir string) string
}

// Describe returns t's traits.
func Describe(t Tool) Traits {
	if d, ok := t.(Describer); ok {
		return d.Traits()
	}
	return Traits{Kind: KindOther}
}

// Touches returns the files a call of t with input reads or changes.
func Touches(t Tool, input json.RawMessage, dir string) []Touch {
	if d, ok := t.(Describer); ok {
		return d.Touches(input, dir)
	}
	return nil
}

// summaryLimit is the most runes a call's summary has.
const summaryLimit = 200

// Summary returns one line that says what a call of t with input works
// on: the tool's own account of it, else its arguments as compact JSON;
// "" when there are none. A summary longer than a line or than
// summaryLimit runes is cut and ends with an ellipsis.
func Summary(t Tool, input json.RawMessage, dir string) string {
	s := ""
	if d, ok := t.(Describer); ok {
		s = d.Summary(input, dir)
	}
	if strings.TrimSpace(s) == "" {
		var buf bytes.Buffer
		if json.Compact(&buf, input) == nil && buf.String() != "{}" && buf.String() != "null" {
			s = buf.String()
		}
	}
	return oneLine(s, summaryLimit)
}

// oneLine is the first non-blank line of s, at most limit runes, with an
// ellipsis when anything was left out.
func oneLine(s string, limit int) string {
	s = strings.TrimSpace(s)
	cut := false
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s, cut = strings.TrimSpace(s[:i]), true
	}
	if utf8.RuneCountInString(s) > limit {
		s, cut = string([]rune(s)[:limit]), true
	}
	if cut {
		s += " …"
	}
	return s
}

// shown is path as a summary shows it: relative to dir when it lies
// below it, else as given.
func shown(dir, path string) string {
	if dir == "" || !filepath.IsAbs(path) {
		return path
	}
	rel, err := filepath.Rel(dir, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return path
	}
	return rel
}

// touch is a Touch of path resolved against dir; "" gives nil.
func touch(dir, path string, write bool) []Touch {
	if path == "" {
		return nil
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	return []Touch{{Path: filepath.Clean(path), Write: write}}
}
