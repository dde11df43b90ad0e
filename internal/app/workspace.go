package app

import (
	"context"
	"slices"

	"github.com/codeloop/codeloop/internal/format"
	"github.com/codeloop/codeloop/internal/lsp"
	"github.com/codeloop/codeloop/internal/skill"
	"github.com/codeloop/codeloop/internal/tool"
)

// ProjectFiles shows the project's files to a front end with the tools'
// checks and the configured secret files.
func (a *App) ProjectFiles() tool.ProjectFiles {
	return tool.ProjectFiles{Root: a.Worktree, Secrets: a.secrets}
}

// WorkspaceSymbols returns the symbols matching query that the running
// language servers know, in the project's files that ProjectFiles shows.
func (a *App) WorkspaceSymbols(ctx context.Context, query string) []lsp.WorkspaceSymbol {
	pf := a.ProjectFiles()
	var out []lsp.WorkspaceSymbol
	for _, s := range a.LSP.WorkspaceSymbols(ctx, query) {
		if pf.Visible(s.Path) {
			out = append(out, s)
		}
	}
	return out
}

// Skills lists the skills the model may load.
func (a *App) Skills() []skill.Skill {
	if a.skills == nil {
		return nil
	}
	return a.skills.All()
}

// ToolList lists the tools the model may be offered: the built-in and
// custom tools, those of the MCP servers connected now, and the lsp tool
// while a language server runs.
func (a *App) ToolList(context.Context) []tool.Tool {
	if a.tools == nil {
		return nil
	}
	all := slices.Clone(a.tools.builtin)
	if a.tools.mcp != nil {
		all = append(all, a.tools.mcp.Tools()...)
	}
	if a.tools.lspTool != nil && a.tools.lsp.Running() {
		all = append(all, a.tools.lspTool)
	}
	return all
}

// FormatterState is a formatter of the config and whether it runs.
type FormatterState struct {
	Name       string
	Extensions []string
	Enabled    bool
}

// Formatters lists the configured formatters; one that runs the project's
// own code is disabled until the project is trusted.
func (a *App) Formatters() ([]FormatterState, error) {
	fs, err := format.Resolve(a.Config.Config.Formatter)
	if err != nil {
		return nil, err
	}
	trusted := a.Trust != nil && a.Trust.Verdict.Trusted()
	out := make([]FormatterState, 0, len(fs))
	for _, f := range fs {
		out = append(out, FormatterState{Name: f.Name, Extensions: slices.Clone(f.Extensions), Enabled: trusted || !f.RunsProjectCode})
	}
	return out, nil
}
