// Package client is the one interface codeloop's front ends (the terminal
// interface, the HTTP server, attach, ACP) use to reach the engine:
// sessions, messages, prompts, aborts, shell commands, slash commands,
// permission and question replies, live events, and the model, agent and
// command catalogs.
//
// Its types are plain structs in OpenCode's JSON shapes and field names, so
// an implementation over HTTP maps them one to one onto OpenCode's routes;
// no type of the engine's own packages leaks through. The in-process
// implementation lives in client/local, the contract every implementation
// keeps is tested by client/clienttest.
//
// It imports nothing of codeloop's, so a front end that imports it depends
// on nothing of the engine.
package client

import (
	"context"
	"encoding/json"
	"errors"
)

// Client reaches one project's engine. Its methods are safe for concurrent
// use. Close releases what the client holds (subscriptions, background
// work it started); it does not stop the engine.
type Client interface {
	// Path says where the client works: the project's directories.
	Path(ctx context.Context) (Path, error)

	// ListSessions lists the project's sessions, the one used last first.
	ListSessions(ctx context.Context, opts ListSessionsOptions) ([]Session, error)
	// GetSession returns a session; the error wraps ErrNotFound when there
	// is none.
	GetSession(ctx context.Context, sessionID string) (Session, error)
	// CreateSession makes a new session in the project.
	CreateSession(ctx context.Context, in CreateSessionInput) (Session, error)
	// DeleteSession removes a session with its messages and its children,
	// stopping its loop first.
	DeleteSession(ctx context.Context, sessionID string) error
	// UpdateSession changes a session's title.
	UpdateSession(ctx context.Context, sessionID string, in UpdateSessionInput) (Session, error)
	// ForkSession copies a session into a new one, up to (not including)
	// in.MessageID when it is set.
	ForkSession(ctx context.Context, sessionID string, in ForkSessionInput) (Session, error)
	// Children lists the sessions started by a session's sub-agents.
	Children(ctx context.Context, sessionID string) ([]Session, error)

	// Messages returns a session's messages with their parts, oldest first.
	Messages(ctx context.Context, sessionID string, opts MessagesOptions) ([]Message, error)
	// Message returns one message with its parts.
	Message(ctx context.Context, sessionID, messageID string) (Message, error)

	// Prompt stores the user's message and starts the session's loop
	// without waiting for the answer. It returns the stored message's id;
	// the answer arrives as events. A prompt sent while the loop runs is
	// taken up by that loop.
	Prompt(ctx context.Context, sessionID string, in PromptInput) (string, error)
	// Abort interrupts the session's loop and its running shell command,
	// if any; what streamed so far is kept.
	Abort(ctx context.Context, sessionID string) error
	// Shell runs a command typed by the user (`!cmd`) with the configured
	// shell and records it in the session as a bash tool call. It returns
	// when the command has ended, with the id of the assistant message that
	// holds it. It fails with ErrBusy while the session's loop runs.
	Shell(ctx context.Context, sessionID string, in ShellInput) (string, error)
	// Command runs a slash command: its template is expanded and sent as a
	// prompt, as Prompt does. It returns the stored message's id, empty for
	// commands that store no message of the user's (compact).
	Command(ctx context.Context, sessionID string, in CommandInput) (string, error)
	// Status returns the status of every session that is not idle.
	Status(ctx context.Context) (map[string]SessionStatus, error)
	// Revert undoes the file changes made after a message and hides the
	// messages from it on; Unrevert restores them. Both fail with an error
	// wrapping ErrUnsupported where file snapshots are not available.
	Revert(ctx context.Context, sessionID string, in RevertInput) (Session, error)
	Unrevert(ctx context.Context, sessionID string) (Session, error)

	// Permissions lists the permission requests waiting for a reply.
	Permissions(ctx context.Context) ([]PermissionRequest, error)
	// ReplyPermission answers a pending permission request; the error wraps
	// ErrNotFound when it is no longer pending.
	ReplyPermission(ctx context.Context, requestID string, in PermissionReply) error
	// Questions lists the questions waiting for an answer.
	Questions(ctx context.Context) ([]QuestionRequest, error)
	// ReplyQuestion answers a pending question: one list of chosen labels
	// (or free text) per question, in order.
	ReplyQuestion(ctx context.Context, requestID string, answers [][]string) error
	// RejectQuestion dismisses a pending question; the loop stops.
	RejectQuestion(ctx context.Context, requestID string) error

	// Subscribe returns a stream of the engine's events that f selects.
	Subscribe(ctx context.Context, f EventFilter) (Events, error)

	// Models returns the usable providers and models, the recently used
	// models and the default.
	Models(ctx context.Context) (ModelCatalog, error)
	// Agents lists the agents, primary and sub-agents.
	Agents(ctx context.Context) ([]Agent, error)
	// Commands lists the project's slash commands.
	Commands(ctx context.Context) ([]Command, error)
	// Config returns the project's resolved config as JSON, in the shape
	// of its config files.
	Config(ctx context.Context) (json.RawMessage, error)
	// MCPStatus reports the state of every configured MCP server by name.
	MCPStatus(ctx context.Context) (map[string]MCPStatus, error)
	// LSPStatus lists the language servers started so far.
	LSPStatus(ctx context.Context) ([]LSPStatus, error)
	// SetAuth stores a provider's credential where codeloop auth login
	// does; the provider's models are in the catalog from the next Models
	// call on.
	SetAuth(ctx context.Context, providerID string, in Auth) error
	// ContextUsage reports what fills a session's context window; the
	// error wraps ErrNotFound when there is no such session.
	ContextUsage(ctx context.Context, sessionID string) (ContextUsage, error)

	// Close releases the client's resources.
	Close() error
}

// Events is a stream of events. Next blocks until the next event, until
// ctx ends (returning ctx's error) or until the stream is closed
// (returning ErrClosed); an event already waiting is returned even when
// ctx has ended, so a caller can drain a burst with a done context. Close
// ends the stream and frees everything it holds; it may be called more
// than once and from any goroutine. An Events value leaves no goroutine
// running once closed.
type Events interface {
	Next(ctx context.Context) (Event, error)
	Close() error
}

// Errors every implementation reports, wrapped with details; test them
// with errors.Is.
var (
	// ErrNotFound: the session, message or pending request does not exist.
	ErrNotFound = errors.New("not found")
	// ErrBusy: the session's loop is running.
	ErrBusy = errors.New("session is busy")
	// ErrUnsupported: this build or server cannot do it.
	ErrUnsupported = errors.New("not supported")
	// ErrClosed: the event stream or the client was closed.
	ErrClosed = errors.New("closed")
)

// UnsupportedError says which operation is not available and why. It
// matches ErrUnsupported.
type UnsupportedError struct {
	Op     string // "revert"
	Reason string // what is missing, and what the user can do instead
}

func (e *UnsupportedError) Error() string {
	if e.Reason == "" {
		return e.Op + " is not supported"
	}
	return e.Op + " is not available: " + e.Reason
}

// Is reports whether target is ErrUnsupported.
func (e *UnsupportedError) Is(target error) bool { return target == ErrUnsupported }
