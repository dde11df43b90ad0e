package local

import (
	"context"
	"encoding/json"
	"net/url"
	"path/filepath"

	"github.com/codeloop/codeloop/internal/app"
	"github.com/codeloop/codeloop/internal/client"
)

var _ client.Workspace = (*Client)(nil)

// Project describes the project.
func (c *Client) Project(ctx context.Context) (client.Project, error) {
	p, err := c.app.Project(ctx)
	if err != nil {
		return client.Project{}, clientError(err)
	}
	return client.Project{ID: p.ID, Worktree: p.Worktree, VCS: p.VCS, Name: filepath.Base(p.Worktree),
		Time: client.ProjectTime{Created: p.TimeCreated, Updated: p.TimeUpdated}, Sandboxes: []string{}}, nil
}

// VCS reports the branch checked out, also before the first commit;
// empty outside a git repository or on a detached HEAD.
func (c *Client) VCS(ctx context.Context) (client.VCSInfo, error) {
	branch, def := c.app.Branch(ctx)
	return client.VCSInfo{Branch: branch, DefaultBranch: def}, nil
}

// ListFiles lists a directory of the project.
func (c *Client) ListFiles(ctx context.Context, path string) ([]client.FileNode, error) {
	es, err := c.app.ProjectFiles().List(ctx, path)
	if err != nil {
		return nil, clientError(err)
	}
	out := make([]client.FileNode, 0, len(es))
	for _, e := range es {
		n := client.FileNode{Name: e.Name, Path: e.Path, Absolute: e.Absolute, Type: "file", Ignored: e.Ignored}
		if e.Dir {
			n.Type = "directory"
		}
		out = append(out, n)
	}
	return out, nil
}

// ReadFile returns a file's content.
func (c *Client) ReadFile(ctx context.Context, path string) (client.FileContent, error) {
	fc, err := c.app.ProjectFiles().Read(ctx, path)
	if err != nil {
		return client.FileContent{}, clientError(err)
	}
	if fc.Binary {
		return client.FileContent{Type: "binary", Content: fc.Content, Encoding: "base64", MimeType: fc.Mime}, nil
	}
	return client.FileContent{Type: "text", Content: fc.Content, MimeType: fc.Mime}, nil
}

// FileStatus lists the files git sees changed against HEAD, untracked
// ones as added; none outside a git repository.
func (c *Client) FileStatus(ctx context.Context) ([]client.FileStatus, error) {
	out := []client.FileStatus{}
	for _, f := range c.app.ChangedFiles(ctx) {
		out = append(out, client.FileStatus{Path: f.Path, Status: f.Status, Added: f.Added, Removed: f.Removed})
	}
	return out, nil
}

// FindText searches the project's files with the grep tool's engine.
func (c *Client) FindText(ctx context.Context, pattern string, limit int) ([]client.TextMatch, error) {
	ms, err := c.app.ProjectFiles().FindText(ctx, pattern, limit)
	if err != nil {
		return nil, clientError(err)
	}
	out := make([]client.TextMatch, 0, len(ms))
	for _, m := range ms {
		tm := client.TextMatch{Path: client.TextValue{Text: m.Path}, Lines: client.TextValue{Text: m.Text}, LineNumber: m.Line, Submatches: []client.Submatch{}}
		for _, s := range m.Submatches {
			tm.Submatches = append(tm.Submatches, client.Submatch{Match: client.TextValue{Text: m.Text[s[0]:s[1]]}, Start: s[0], End: s[1]})
		}
		out = append(out, tm)
	}
	return out, nil
}

// FindFiles finds the project's files and directories by name.
func (c *Client) FindFiles(ctx context.Context, in client.FindFilesInput) ([]string, error) {
	out, err := c.app.FindFiles(ctx, app.FileQuery{Query: in.Query, Type: in.Type, NoDirs: in.Dirs == "false", Limit: in.Limit})
	if err != nil {
		return nil, clientError(err)
	}
	if out == nil {
		out = []string{}
	}
	return out, nil
}

// FindSymbols returns the workspace symbols of the running language
// servers, in files the file routes show.
func (c *Client) FindSymbols(ctx context.Context, query string) ([]client.Symbol, error) {
	out := []client.Symbol{}
	for _, s := range c.app.WorkspaceSymbols(ctx, query) {
		r := s.Range
		out = append(out, client.Symbol{Name: s.Name, Kind: s.Kind, Location: client.SymbolLocation{
			URI: (&url.URL{Scheme: "file", Path: filepath.ToSlash(s.Path)}).String(),
			Range: client.Range{Start: client.Position{Line: int(r.Start.Line), Character: int(r.Start.Character)},
				End: client.Position{Line: int(r.End.Line), Character: int(r.End.Character)}}}})
	}
	return out, nil
}

// Todos returns a session's todo list.
func (c *Client) Todos(ctx context.Context, sessionID string) ([]client.Todo, error) {
	ts, err := c.app.Todos(ctx, sessionID)
	if err != nil {
		return nil, clientError(err)
	}
	return toTodos(ts), nil
}

// SessionDiff returns the file changes a session (or one message) made;
// none where file snapshots are off.
func (c *Client) SessionDiff(ctx context.Context, sessionID, messageID string) ([]client.FileDiff, error) {
	ds, err := c.app.SessionDiff(ctx, sessionID, messageID)
	if err != nil {
		return nil, clientError(err)
	}
	out := make([]client.FileDiff, 0, len(ds))
	for _, d := range ds {
		out = append(out, client.FileDiff{File: d.File, Patch: d.Patch, Before: d.Before, After: d.After,
			Additions: d.Additions, Deletions: d.Deletions, Status: d.Status})
	}
	return out, nil
}

// Tools lists the tools the model may be offered.
func (c *Client) Tools(ctx context.Context) ([]client.ToolInfo, error) {
	ts := c.app.ToolList(ctx)
	out := make([]client.ToolInfo, 0, len(ts))
	for _, t := range ts {
		var params any = map[string]any{}
		if s := t.Schema(); len(s) > 0 {
			if err := json.Unmarshal(s, &params); err != nil {
				params = map[string]any{}
			}
		}
		out = append(out, client.ToolInfo{ID: t.ID(), Description: t.Description(), Parameters: params})
	}
	return out, nil
}

// Skills lists the skills.
func (c *Client) Skills(context.Context) ([]client.Skill, error) {
	ss := c.app.Skills()
	out := make([]client.Skill, 0, len(ss))
	for _, s := range ss {
		out = append(out, client.Skill{Name: s.Name, Description: s.Description, Location: s.Location, Content: s.Content})
	}
	return out, nil
}

// Formatters lists the configured formatters.
func (c *Client) Formatters(context.Context) ([]client.Formatter, error) {
	fs, err := c.app.Formatters()
	if err != nil {
		return nil, clientError(err)
	}
	out := make([]client.Formatter, 0, len(fs))
	for _, f := range fs {
		exts := f.Extensions
		if exts == nil {
			exts = []string{}
		}
		out = append(out, client.Formatter{Name: f.Name, Extensions: exts, Enabled: f.Enabled})
	}
	return out, nil
}
