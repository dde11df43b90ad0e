package client

import (
	"context"
	"errors"
)

// ErrForbidden: the path is outside the project, climbs with "..", is
// ignored, or is a secret file whose content is not shown.
var ErrForbidden = errors.New("forbidden")

// Workspace is what a client that runs next to the project can also show:
// the project, its files, searches over them, a session's todos and
// changes, and the tools and skills. The in-process client implements it;
// a front end type-asserts a Client to it.
type Workspace interface {
	// Project describes the project.
	Project(ctx context.Context) (Project, error)
	// VCS reports the project's git branch.
	VCS(ctx context.Context) (VCSInfo, error)
	// ListFiles lists a directory of the project, path relative to it.
	ListFiles(ctx context.Context, path string) ([]FileNode, error)
	// ReadFile returns a file's content. A path outside the project,
	// ignored, or a secret file fails with an error wrapping ErrForbidden.
	ReadFile(ctx context.Context, path string) (FileContent, error)
	// FileStatus lists the files git sees changed in the work tree.
	FileStatus(ctx context.Context) ([]FileStatus, error)
	// FindText searches the project's files for a regular expression.
	FindText(ctx context.Context, pattern string, limit int) ([]TextMatch, error)
	// FindFiles finds the project's files (and directories) by name.
	FindFiles(ctx context.Context, in FindFilesInput) ([]string, error)
	// FindSymbols returns the workspace symbols matching query that the
	// running language servers know, in the project's visible files.
	FindSymbols(ctx context.Context, query string) ([]Symbol, error)
	// Todos returns a session's todo list.
	Todos(ctx context.Context, sessionID string) ([]Todo, error)
	// SessionDiff returns the file changes a session made, or those of
	// one message when messageID is set.
	SessionDiff(ctx context.Context, sessionID, messageID string) ([]FileDiff, error)
	// Tools lists the tools the model may be offered.
	Tools(ctx context.Context) ([]ToolInfo, error)
	// Skills lists the skills.
	Skills(ctx context.Context) ([]Skill, error)
	// Formatters lists the formatters and whether each runs.
	Formatters(ctx context.Context) ([]Formatter, error)
}

// Project is OpenCode's project.
type Project struct {
	ID        string      `json:"id"`
	Worktree  string      `json:"worktree"`
	VCS       string      `json:"vcs,omitempty"` // "git"
	Name      string      `json:"name,omitempty"`
	Time      ProjectTime `json:"time"`
	Sandboxes []string    `json:"sandboxes"`
}

// ProjectTime says when the project was first opened, in Unix ms.
type ProjectTime struct {
	Created     int64 `json:"created"`
	Updated     int64 `json:"updated,omitempty"`
	Initialized int64 `json:"initialized,omitempty"`
}

// VCSInfo is the project's version control state.
type VCSInfo struct {
	Branch        string `json:"branch,omitempty"`
	DefaultBranch string `json:"default_branch,omitempty"`
}

// FileNode is one entry of a directory listing.
type FileNode struct {
	Name     string `json:"name"`
	Path     string `json:"path"`
	Absolute string `json:"absolute"`
	Type     string `json:"type"` // "file" or "directory"
	Ignored  bool   `json:"ignored"`
}

// FileContent is a file's content; Encoding is "base64" for a binary
// file.
type FileContent struct {
	Type     string `json:"type"` // "text" or "binary"
	Content  string `json:"content"`
	Encoding string `json:"encoding,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
}

// FileStatus is a file git sees changed.
type FileStatus struct {
	Path    string `json:"path"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	Status  string `json:"status"` // "added", "deleted" or "modified"
}

// TextMatch is one matching line, in ripgrep's JSON shape as OpenCode
// returns it.
type TextMatch struct {
	Path           TextValue  `json:"path"`
	Lines          TextValue  `json:"lines"`
	LineNumber     int        `json:"line_number"`
	AbsoluteOffset int64      `json:"absolute_offset"`
	Submatches     []Submatch `json:"submatches"`
}

// TextValue wraps a string as ripgrep does.
type TextValue struct {
	Text string `json:"text"`
}

// Submatch is one match in a line, byte offsets.
type Submatch struct {
	Match TextValue `json:"match"`
	Start int       `json:"start"`
	End   int       `json:"end"`
}

// FindFilesInput selects the names FindFiles returns.
type FindFilesInput struct {
	Query string `json:"query"`
	// Dirs includes directories unless "false".
	Dirs string `json:"dirs,omitempty"`
	// Type keeps only "file" or "directory".
	Type  string `json:"type,omitempty"`
	Limit int    `json:"limit,omitempty"`
}

// FileDiff is one file's change.
type FileDiff struct {
	File      string `json:"file"`
	Patch     string `json:"patch,omitempty"`
	Before    string `json:"before"`
	After     string `json:"after"`
	Additions int    `json:"additions"`
	Deletions int    `json:"deletions"`
	Status    string `json:"status,omitempty"`
}

// ToolInfo describes a tool.
type ToolInfo struct {
	ID          string `json:"id"`
	Description string `json:"description"`
	// Parameters is the tool's JSON Schema.
	Parameters any `json:"parameters"`
}

// Skill is a skill the model may load.
type Skill struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Location    string `json:"location"`
	Content     string `json:"content"`
}

// Formatter is a formatter and whether it runs.
type Formatter struct {
	Name       string   `json:"name"`
	Extensions []string `json:"extensions"`
	Enabled    bool     `json:"enabled"`
}

// Symbol is a workspace symbol, in LSP's shape.
type Symbol struct {
	Name     string         `json:"name"`
	Kind     int            `json:"kind"`
	Location SymbolLocation `json:"location"`
}

// SymbolLocation is where a symbol is: a file URI and a range.
type SymbolLocation struct {
	URI   string `json:"uri"`
	Range Range  `json:"range"`
}

// Range is a span of a file, 0-based lines and characters as LSP has them.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Position is a 0-based line and character.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}
