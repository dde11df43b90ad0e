// Package tool defines what a tool is, how the loop calls one, the registry
// of tools an agent may see, and the truncation every tool output passes
// through. The built-in tools live in this package too, one file each.
//
// The built-in tools keep three promises. They read and change regular
// files only: a named pipe, socket or device is refused with a
// *NotRegularError, and files are opened without blocking, so no tool call
// can hang on one (regular.go). They never write a file in place: write,
// edit and apply_patch stage new content beside the target and rename it
// over, so after a crash a file is whole, old or new (atomic.go). And the
// processes they start (the bash tool's shell, ripgrep) go through
// internal/proc, so none outlives codeloop.
//
// It may import llm, permission, proc, sandbox, id, bus and store; the
// session loop, agents and the MCP client import it.
package tool

import (
	"context"
	"encoding/json"

	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/sandbox"
)

// Tool is one capability the model can call.
type Tool interface {
	// ID is the name the model calls the tool by.
	ID() string
	// Description tells the model what the tool does and when to use it.
	Description() string
	// Schema is the JSON Schema of the tool's arguments.
	Schema() json.RawMessage
	// Run executes one call. An error is reported to the model as the
	// call's failure; Run must return promptly once ctx is cancelled.
	Run(ctx context.Context, call *Call) (*Result, error)
}

// Call is one invocation of a tool, with everything it may need from the
// session that made it.
type Call struct {
	ID        string          // the model's tool-call id
	Tool      string          // the tool id
	Input     json.RawMessage // the raw JSON arguments
	SessionID string
	MessageID string
	Agent     string
	// Dir is the session's working directory and Worktree the root of its
	// project (the git worktree, or Dir when there is none).
	Dir      string
	Worktree string

	// Asker checks the call's permission requests; the tool fills in
	// SessionID and Tool of each request from the call.
	Asker permission.Asker
	// Progress, when set, receives the call's live title and metadata while
	// it runs (bash streams its output this way).
	Progress func(title string, metadata map[string]any)
	// CanDelegate reports that the calling agent may use the task tool; the
	// hint under a truncated output then suggests delegating the reading.
	CanDelegate bool
	// Messages, when set, returns the session's messages as the model saw
	// them at the step that made the call. They are shared: a tool must not
	// change them.
	Messages func() []message.Message
	// Files, when set, is where read, write, edit and apply_patch read and
	// write the text of files (an editor's buffers); nil means the disk.
	Files FileSystem
	// Terminal, when set, is where bash runs its command (an editor's
	// terminals) unless a sandbox mode is on; nil means codeloop's shell.
	Terminal Terminal
	// Sandbox is the session's own sandbox mode: bash confines commands
	// at least this strictly, whatever the configured mode.
	Sandbox sandbox.Mode
}

// progress reports live title and metadata when the caller listens.
func (c *Call) progress(title string, metadata map[string]any) {
	if c.Progress != nil {
		c.Progress(title, metadata)
	}
}

// Ask asks permission for req on behalf of the call.
func (c *Call) Ask(ctx context.Context, req permission.Request) error {
	if c.Asker == nil {
		if req.Protected {
			// Nobody can approve it.
			return &permission.RejectedError{Permission: req.Permission,
				Reason: "it needs the user's approval, which is never given automatically: " + req.Reason}
		}
		return nil
	}
	req.SessionID = c.SessionID
	req.Tool = &permission.ToolRef{MessageID: c.MessageID, CallID: c.ID}
	return c.Asker.Ask(ctx, req)
}

// Attachment is a file a tool returns beside its text output (an image the
// model should see, say).
type Attachment struct {
	Mime     string `json:"mime"`
	Filename string `json:"filename,omitempty"`
	URL      string `json:"url"` // a data: or file: URL
}

// Result is a completed call's output.
type Result struct {
	Title       string         `json:"title"`
	Output      string         `json:"output"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	Attachments []Attachment   `json:"attachments,omitempty"`
}
