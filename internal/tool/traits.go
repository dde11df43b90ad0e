package tool

import (
	"encoding/json"
	"path/filepath"
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

// Describer is a tool that describes itself; Describe and Touches fall
// back to an uncontained tool of KindOther touching nothing for others.
type Describer interface {
	Traits() Traits
	// Touches returns the files a call with these arguments reads or
	// changes, relative paths resolved against dir; nil when they cannot
	// be known from the arguments.
	Touches(input json.RawMessage, dir string) []Touch
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
