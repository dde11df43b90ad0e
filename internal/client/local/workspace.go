package local

import (
	"context"
	"encoding/json"
	"net/url"
	"path/filepath"

	"github.com/codeloop/codeloop/internal/app"
	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/lsp"
	"github.com/codeloop/codeloop/internal/skill"
	"github.com/codeloop/codeloop/internal/snapshot"
	"github.com/codeloop/codeloop/internal/store"
	"github.com/codeloop/codeloop/internal/tool"
)

var _ client.Workspace = (*Client)(nil)

// Project describes the project.
func (c *Client) Project(ctx context.Context) (client.Project, error) {
	return result(func(p store.Project) client.Project {
		return client.Project{ID: p.ID, Worktree: p.Worktree, VCS: p.VCS, Name: filepath.Base(p.Worktree),
			Time: client.ProjectTime{Created: p.TimeCreated, Updated: p.TimeUpdated}, Sandboxes: []string{}}
	})(c.app.Project(ctx))
}

// VCS reports the branch checked out, also before the first commit;
// empty outside a git repository or on a detached HEAD.
func (c *Client) VCS(ctx context.Context) (client.VCSInfo, error) {
	branch, def := c.app.Branch(ctx)
	return client.VCSInfo{Branch: branch, DefaultBranch: def}, nil
}

// ListFiles lists a directory of the project.
func (c *Client) ListFiles(ctx context.Context, path string) ([]client.FileNode, error) {
	return result(each(func(e tool.ProjectEntry) client.FileNode {
		n := client.FileNode{Name: e.Name, Path: e.Path, Absolute: e.Absolute, Type: "file", Ignored: e.Ignored}
		if e.Dir {
			n.Type = "directory"
		}
		return n
	}))(c.app.ProjectFiles().List(ctx, path))
}

// ReadFile returns a file's content.
func (c *Client) ReadFile(ctx context.Context, path string) (client.FileContent, error) {
	return result(func(fc tool.ProjectContent) client.FileContent {
		if fc.Binary {
			return client.FileContent{Type: "binary", Content: fc.Content, Encoding: "base64", MimeType: fc.Mime}
		}
		return client.FileContent{Type: "text", Content: fc.Content, MimeType: fc.Mime}
	})(c.app.ProjectFiles().Read(ctx, path))
}

// FileStatus lists the files git sees changed against HEAD, untracked
// ones as added; none outside a git repository.
func (c *Client) FileStatus(ctx context.Context) ([]client.FileStatus, error) {
	return each(func(f app.FileChange) client.FileStatus {
		return client.FileStatus{Path: f.Path, Status: f.Status, Added: f.Added, Removed: f.Removed}
	})(c.app.ChangedFiles(ctx)), nil
}

// FindText searches the project's files with the grep tool's engine.
func (c *Client) FindText(ctx context.Context, pattern string, limit int) ([]client.TextMatch, error) {
	return result(each(func(m tool.ProjectMatch) client.TextMatch {
		return client.TextMatch{Path: client.TextValue{Text: m.Path}, Lines: client.TextValue{Text: m.Text}, LineNumber: m.Line,
			Submatches: each(func(s [2]int) client.Submatch {
				return client.Submatch{Match: client.TextValue{Text: m.Text[s[0]:s[1]]}, Start: s[0], End: s[1]}
			})(m.Submatches)}
	}))(c.app.ProjectFiles().FindText(ctx, pattern, limit))
}

// FindFiles finds the project's files and directories by name.
func (c *Client) FindFiles(ctx context.Context, in client.FindFilesInput) ([]string, error) {
	return result(each(func(p string) string { return p }))(c.app.FindFiles(ctx, app.FileQuery{Query: in.Query, Type: in.Type,
		NoDirs: in.Dirs == "false", Limit: in.Limit}))
}

// FindSymbols returns the workspace symbols of the running language
// servers, in files the file routes show.
func (c *Client) FindSymbols(ctx context.Context, query string) ([]client.Symbol, error) {
	return each(func(s lsp.WorkspaceSymbol) client.Symbol {
		r := s.Range
		return client.Symbol{Name: s.Name, Kind: s.Kind, Location: client.SymbolLocation{
			URI: (&url.URL{Scheme: "file", Path: filepath.ToSlash(s.Path)}).String(),
			Range: client.Range{Start: client.Position{Line: int(r.Start.Line), Character: int(r.Start.Character)},
				End: client.Position{Line: int(r.End.Line), Character: int(r.End.Character)}}}}
	})(c.app.WorkspaceSymbols(ctx, query)), nil
}

// Todos returns a session's todo list.
func (c *Client) Todos(ctx context.Context, sessionID string) ([]client.Todo, error) {
	return result(toTodos)(c.app.Todos(ctx, sessionID))
}

// SessionDiff returns the file changes a session (or one message) made;
// none where file snapshots are off.
func (c *Client) SessionDiff(ctx context.Context, sessionID, messageID string) ([]client.FileDiff, error) {
	return result(each(func(d snapshot.FileDiff) client.FileDiff {
		return client.FileDiff{File: d.File, Patch: d.Patch, Before: d.Before, After: d.After,
			Additions: d.Additions, Deletions: d.Deletions, Status: d.Status}
	}))(c.app.SessionDiff(ctx, sessionID, messageID))
}

// Tools lists the tools the model may be offered.
func (c *Client) Tools(ctx context.Context) ([]client.ToolInfo, error) {
	return each(func(t tool.Tool) client.ToolInfo {
		var params any = map[string]any{}
		if s := t.Schema(); len(s) > 0 {
			if err := json.Unmarshal(s, &params); err != nil {
				params = map[string]any{}
			}
		}
		return client.ToolInfo{ID: t.ID(), Description: t.Description(), Parameters: params}
	})(c.app.ToolList(ctx)), nil
}

// Skills lists the skills.
func (c *Client) Skills(context.Context) ([]client.Skill, error) {
	return each(func(s skill.Skill) client.Skill {
		return client.Skill{Name: s.Name, Description: s.Description, Location: s.Location, Content: s.Content}
	})(c.app.Skills()), nil
}

// Formatters lists the configured formatters.
func (c *Client) Formatters(context.Context) ([]client.Formatter, error) {
	return result(each(func(f app.FormatterState) client.Formatter {
		exts := f.Extensions
		if exts == nil {
			exts = []string{}
		}
		return client.Formatter{Name: f.Name, Extensions: exts, Enabled: f.Enabled}
	}))(c.app.Formatters())
}
