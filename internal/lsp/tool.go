package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/tool"
)

type toolParams struct {
	Operation string `json:"operation" jsonschema:"What to ask the language server"`
	FilePath  string `json:"filePath" jsonschema:"The absolute or relative path of the file"`
	Line      int    `json:"line,omitempty" jsonschema:"The line number (1-based), for goToDefinition, findReferences and hover"`
	Character int    `json:"character,omitempty" jsonschema:"The character offset in the line (1-based), for goToDefinition, findReferences and hover"`
	Query     string `json:"query,omitempty" jsonschema:"The symbol name to search for, for workspaceSymbol"`
}

const toolDescription = `Ask the project's language server about code, as an editor would.

Operations:
- goToDefinition: where the symbol at line:character is defined
- findReferences: every use of the symbol at line:character
- hover: the type and documentation of the symbol at line:character
- documentSymbol: the symbols (functions, types, fields...) of filePath
- workspaceSymbol: the project's symbols whose name matches query (filePath picks the server)

Lines and characters are 1-based, as the read tool shows them. Prefer this tool to grep when you
need the definition or the callers of one symbol: it follows the language's scoping rules.`

// NewTool returns the lsp tool over m. The caller offers it only while
// m.Running.
func NewTool(m *Manager) tool.Tool {
	return tool.Must(tool.Def[toolParams]{
		ID:          "lsp",
		Traits:      tool.Traits{Kind: tool.KindSearch, Contained: true},
		Summary:     summary,
		Description: toolDescription,
		Schema: func(s *jsonschema.Schema) {
			var ops []any
			for _, op := range Ops() {
				ops = append(ops, op)
			}
			s.Properties["operation"].Enum = ops
			one := float64(1)
			s.Properties["line"].Minimum = &one
			s.Properties["character"].Minimum = &one
		},
		Run: func(ctx context.Context, call *tool.Call, p toolParams) (*tool.Result, error) {
			path := p.FilePath
			if !filepath.IsAbs(path) {
				base := call.Dir
				if base == "" {
					base = call.Worktree
				}
				path = filepath.Join(base, path)
			}
			path = filepath.Clean(path)
			rel := path
			if r, err := filepath.Rel(m.opts.Worktree, path); err == nil && within(path, m.opts.Worktree) {
				rel = filepath.ToSlash(r)
			}
			if err := call.Ask(ctx, permission.Request{Permission: "lsp", Patterns: []string{rel}, Always: []string{"*"},
				Metadata: map[string]any{"operation": p.Operation, "filepath": path}}); err != nil {
				return nil, err
			}
			if (p.Operation == OpDefinition || p.Operation == OpReferences || p.Operation == OpHover) && (p.Line < 1 || p.Character < 1) {
				return nil, fmt.Errorf("%s needs line and character (1-based)", p.Operation)
			}
			out, err := m.Query(ctx, p.Operation, path, p.Line, p.Character, p.Query)
			if err != nil {
				return nil, err
			}
			title := fmt.Sprintf("%s %s", p.Operation, rel)
			if p.Line > 0 {
				title += fmt.Sprintf(":%d:%d", p.Line, p.Character)
			}
			return &tool.Result{Title: title, Output: out, Metadata: map[string]any{"operation": p.Operation, "filepath": path}}, nil
		},
	})
}

// summary is the operation a call asks for and what it asks about.
func summary(p toolParams, dir string) string {
	s := p.Operation
	if p.FilePath != "" {
		path := p.FilePath
		if rel, err := filepath.Rel(dir, path); err == nil && filepath.IsAbs(path) && !strings.HasPrefix(rel, "..") {
			path = rel
		}
		s += " " + path
		if p.Line > 0 {
			s += fmt.Sprintf(":%d:%d", p.Line, p.Character)
		}
	}
	if p.Query != "" {
		s += " " + p.Query
	}
	return s
}
