package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// The operations of Query.
const (
	OpDefinition      = "goToDefinition"
	OpReferences      = "findReferences"
	OpHover           = "hover"
	OpDocumentSymbol  = "documentSymbol"
	OpWorkspaceSymbol = "workspaceSymbol"
)

// Ops lists the operations of Query.
func Ops() []string {
	return []string{OpDefinition, OpReferences, OpHover, OpDocumentSymbol, OpWorkspaceSymbol}
}

// QueryTimeout bounds a server's answer to a query.
const QueryTimeout = 30 * time.Second

// MaxQueryResults bounds the locations and symbols Query lists.
const MaxQueryResults = 100

// NoServerError says no language server serves a file.
type NoServerError struct{ Path string }

func (e *NoServerError) Error() string {
	return fmt.Sprintf("no language server is running or installed for %s: use read and grep instead", e.Path)
}

// Query asks the server of path (absolute) for the definition of, the
// references to or the hover text of the symbol at line and character
// (1-based), for the file's symbols, or for the workspace's symbols
// matching query, and returns the answer as text with paths relative to
// the worktree and 1-based positions.
func (m *Manager) Query(ctx context.Context, op, path string, line, character int, query string) (string, error) {
	if !m.Enabled() {
		return "", &NoServerError{Path: path}
	}
	servers := m.serversFor(path)
	if len(servers) == 0 {
		return "", &NoServerError{Path: path}
	}
	in, _ := m.instanceFor(servers[0], path)
	if in == nil {
		return "", &NoServerError{Path: path}
	}
	c := m.ready(ctx, in, time.Now().Add(m.opts.StartTimeout))
	if c == nil {
		if msg := m.problem(in); msg != "" {
			return "", errors.New(msg)
		}
		return "", fmt.Errorf("the %s language server is not ready: try again in a moment", servers[0].Name)
	}
	if !c.isOpen(path) {
		if _, _, err := c.sync(ctx, path); err != nil {
			return "", fmt.Errorf("opening %s: %w", path, err)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, QueryTimeout)
	defer cancel()
	doc := protocol.TextDocumentIdentifier{URI: uri.File(path)}
	pos := protocol.TextDocumentPositionParams{TextDocument: doc,
		Position: protocol.Position{Line: uint32(max(line-1, 0)), Character: uint32(max(character-1, 0))}}
	var raw json.RawMessage
	var err error
	switch op {
	case OpDefinition:
		err = c.call(ctx, protocol.MethodTextDocumentDefinition, protocol.DefinitionParams{TextDocumentPositionParams: pos}, &raw)
	case OpReferences:
		err = c.call(ctx, protocol.MethodTextDocumentReferences,
			protocol.ReferenceParams{TextDocumentPositionParams: pos, Context: protocol.ReferenceContext{IncludeDeclaration: true}}, &raw)
	case OpHover:
		err = c.call(ctx, protocol.MethodTextDocumentHover, protocol.HoverParams{TextDocumentPositionParams: pos}, &raw)
	case OpDocumentSymbol:
		err = c.call(ctx, protocol.MethodTextDocumentDocumentSymbol, protocol.DocumentSymbolParams{TextDocument: doc}, &raw)
	case OpWorkspaceSymbol:
		err = c.call(ctx, protocol.MethodWorkspaceSymbol, protocol.WorkspaceSymbolParams{Query: query}, &raw)
	default:
		return "", fmt.Errorf("unknown operation %q: use one of %s", op, strings.Join(Ops(), ", "))
	}
	if err != nil {
		return "", fmt.Errorf("%s: %s: %w", servers[0].Name, op, err)
	}
	f := answer{worktree: m.opts.Worktree, lines: map[string][]string{}}
	var out string
	switch op {
	case OpDefinition, OpReferences:
		out = f.locations(raw)
	case OpHover:
		out = hoverText(raw)
	case OpDocumentSymbol, OpWorkspaceSymbol:
		out = f.symbols(raw, path)
	}
	if out == "" {
		return "No results.", nil
	}
	return out, nil
}

// answer formats query results.
type answer struct {
	worktree string
	lines    map[string][]string // file lines read so far
}

func (a *answer) rel(p string) string {
	if within(p, a.worktree) {
		if r, err := filepath.Rel(a.worktree, p); err == nil {
			return filepath.ToSlash(r)
		}
	}
	return p
}

// line returns line n (0-based) of file, trimmed, or "".
func (a *answer) line(file string, n uint32) string {
	ls, ok := a.lines[file]
	if !ok {
		b, _ := os.ReadFile(file)
		ls = strings.Split(string(b), "\n")
		a.lines[file] = ls
	}
	if int(n) < len(ls) {
		return strings.TrimSpace(ls[n])
	}
	return ""
}

// locations renders a Location, a list of them or a list of LocationLinks.
func (a *answer) locations(raw json.RawMessage) string {
	var locs []protocol.Location
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
	case raw[0] == '{':
		var l protocol.Location
		if json.Unmarshal(raw, &l) == nil {
			locs = append(locs, l)
		}
	default:
		var items []struct {
			protocol.Location
			TargetURI   uri.URI         `json:"targetUri"`
			TargetRange *protocol.Range `json:"targetSelectionRange"`
		}
		_ = json.Unmarshal(raw, &items)
		for _, it := range items {
			if it.TargetURI != "" && it.TargetRange != nil {
				locs = append(locs, protocol.Location{URI: it.TargetURI, Range: *it.TargetRange})
			} else {
				locs = append(locs, it.Location)
			}
		}
	}
	var b strings.Builder
	for i, l := range locs {
		if i == MaxQueryResults {
			fmt.Fprintf(&b, "... and %d more\n", len(locs)-i)
			break
		}
		file := l.URI.Filename()
		fmt.Fprintf(&b, "%s:%d:%d: %s\n", a.rel(file), l.Range.Start.Line+1, l.Range.Start.Character+1, a.line(file, l.Range.Start.Line))
	}
	return strings.TrimSpace(b.String())
}

// hoverText renders hover contents: markup, a marked string or a list of
// them.
func hoverText(raw json.RawMessage) string {
	var h struct {
		Contents json.RawMessage `json:"contents"`
	}
	if json.Unmarshal(raw, &h) != nil || len(h.Contents) == 0 {
		return ""
	}
	one := func(r json.RawMessage) string {
		var s string
		if json.Unmarshal(r, &s) == nil {
			return s
		}
		var v struct {
			Value string `json:"value"`
		}
		_ = json.Unmarshal(r, &v)
		return v.Value
	}
	var list []json.RawMessage
	if json.Unmarshal(h.Contents, &list) == nil {
		var parts []string
		for _, r := range list {
			parts = append(parts, one(r))
		}
		return strings.TrimSpace(strings.Join(parts, "\n\n"))
	}
	return strings.TrimSpace(one(h.Contents))
}

// symbols renders DocumentSymbols (as a tree) or SymbolInformation.
func (a *answer) symbols(raw json.RawMessage, path string) string {
	var items []struct {
		Name     string                    `json:"name"`
		Detail   string                    `json:"detail"`
		Kind     protocol.SymbolKind       `json:"kind"`
		Location *protocol.Location        `json:"location"`
		Range    *protocol.Range           `json:"selectionRange"`
		Children []protocol.DocumentSymbol `json:"children"`
	}
	if json.Unmarshal(raw, &items) != nil {
		return ""
	}
	var b strings.Builder
	n := 0
	var tree func(s []protocol.DocumentSymbol, depth int)
	tree = func(s []protocol.DocumentSymbol, depth int) {
		for _, d := range s {
			if n++; n > MaxQueryResults {
				return
			}
			fmt.Fprintf(&b, "%s%s %s%s %d:%d\n", strings.Repeat("  ", depth), d.Kind, d.Name, detail(d.Detail),
				d.SelectionRange.Start.Line+1, d.SelectionRange.Start.Character+1)
			tree(d.Children, depth+1)
		}
	}
	for _, it := range items {
		if n++; n > MaxQueryResults {
			break
		}
		switch {
		case it.Location != nil:
			fmt.Fprintf(&b, "%s %s %s:%d:%d\n", it.Kind, it.Name, a.rel(it.Location.URI.Filename()),
				it.Location.Range.Start.Line+1, it.Location.Range.Start.Character+1)
		case it.Range != nil:
			fmt.Fprintf(&b, "%s %s%s %d:%d\n", it.Kind, it.Name, detail(it.Detail), it.Range.Start.Line+1, it.Range.Start.Character+1)
			tree(it.Children, 1)
		}
	}
	if n > MaxQueryResults {
		fmt.Fprintf(&b, "... (only the first %d symbols)\n", MaxQueryResults)
	}
	if s := strings.TrimSpace(b.String()); s != "" && len(items) > 0 && items[0].Range != nil {
		return a.rel(path) + ":\n" + s
	}
	return strings.TrimSpace(b.String())
}

func detail(d string) string {
	if d == "" {
		return ""
	}
	return " (" + d + ")"
}
