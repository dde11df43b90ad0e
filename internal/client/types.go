package client

import (
	"context"
	"encoding/json"
)

// Path is where a client works (OpenCode's GET /path).
type Path struct {
	Home      string `json:"home"`
	State     string `json:"state"`
	Config    string `json:"config"`
	Worktree  string `json:"worktree"`
	Directory string `json:"directory"`
	// Trust says whether the project's own commands and settings apply;
	// codeloop's addition to OpenCode's shape.
	Trust *ProjectTrust `json:"trust,omitempty"`
}

// ProjectTrust is what the user's trust says of a project: "trusted",
// "not trusted" or "changed since it was trusted", what changed, and what
// the project's own files would make codeloop run or loosen, held back
// unless it is trusted.
type ProjectTrust struct {
	State    string      `json:"state"`
	Changes  []string    `json:"changes,omitempty"`
	HeldBack []TrustItem `json:"heldBack,omitempty"`
}

// TrustItem is one held-back item: its kind (mcp, lsp, formatter, hook,
// tool, command, shell, permission, agent, sandbox, server, provider,
// search, retention, instructions), name, command line or value, and where
// the project defines it.
type TrustItem struct {
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	Detail string `json:"detail,omitempty"`
	File   string `json:"file"`
	Line   int    `json:"line,omitempty"`
}

// Session is a session's record.
type Session struct {
	ID        string          `json:"id"`
	Slug      string          `json:"slug,omitempty"`
	ProjectID string          `json:"projectID"`
	Directory string          `json:"directory"`
	ParentID  string          `json:"parentID,omitempty"`
	Title     string          `json:"title"`
	Version   string          `json:"version,omitempty"`
	Agent     string          `json:"agent,omitempty"`
	Model     *SessionModel   `json:"model,omitempty"`
	Cost      float64         `json:"cost,omitempty"`
	Tokens    *Tokens         `json:"tokens,omitempty"`
	Summary   *SessionSummary `json:"summary,omitempty"`
	Share     *SessionShare   `json:"share,omitempty"`
	Time      SessionTime     `json:"time"`
	// Permission is the session's own rules, added to the agent's.
	Permission []PermissionRule `json:"permission,omitempty"`
	// Sandbox is the session's own sandbox mode, when it has one.
	Sandbox string `json:"sandbox,omitempty"`
	// Revert is the point the session was reverted to, as stored.
	Revert json.RawMessage `json:"revert,omitempty"`
	// Messages counts the session's messages and Preview is the start of
	// its first one, when listed with Details (codeloop's addition).
	Messages int    `json:"messages,omitempty"`
	Preview  string `json:"preview,omitempty"`
}

// SessionModel is the model a session last used.
type SessionModel struct {
	ID         string `json:"id"`
	ProviderID string `json:"providerID"`
	Variant    string `json:"variant,omitempty"`
}

// SessionSummary counts the changes a session made.
type SessionSummary struct {
	Additions int `json:"additions"`
	Deletions int `json:"deletions"`
	Files     int `json:"files"`
}

// SessionShare is where a session is shared.
type SessionShare struct {
	URL string `json:"url"`
}

// SessionTime holds a session's timestamps in Unix milliseconds.
type SessionTime struct {
	Created    int64 `json:"created"`
	Updated    int64 `json:"updated"`
	Compacting int64 `json:"compacting,omitempty"`
	Archived   int64 `json:"archived,omitempty"`
}

// PermissionRule is one rule of a ruleset: allow, ask or deny the
// permission for the patterns matching Pattern.
type PermissionRule struct {
	Permission string `json:"permission"`
	Pattern    string `json:"pattern"`
	Action     string `json:"action"`
}

// SessionStatus says what a session does: "idle", "busy" or "retry".
// Attempt, Message and Next (Unix milliseconds of the next attempt) are
// set while retrying; Message alone, while busy, says what it waits for.
type SessionStatus struct {
	Type    string `json:"type"`
	Attempt int    `json:"attempt,omitempty"`
	Max     int    `json:"max,omitempty"` // the attempts allowed
	Message string `json:"message,omitempty"`
	Next    int64  `json:"next,omitempty"`
}

// The session status types.
const (
	StatusIdle  = "idle"
	StatusBusy  = "busy"
	StatusRetry = "retry"
)

// ListSessionsOptions select sessions to list.
type ListSessionsOptions struct {
	// Roots leaves out sessions started by sub-agents.
	Roots bool `json:"roots,omitempty"`
	// Limit caps the number listed; zero lists all.
	Limit int `json:"limit,omitempty"`
	// Search keeps the sessions whose title contains it, ignoring case.
	Search string `json:"search,omitempty"`
	// Details fills each session's Messages and Preview (codeloop's
	// addition), which cost a few reads a session.
	Details bool `json:"details,omitempty"`
}

// CreateSessionInput describes a new session.
type CreateSessionInput struct {
	ParentID string `json:"parentID,omitempty"`
	// Title, when empty, is a dated default the model later replaces.
	Title string `json:"title,omitempty"`
	// Permission are the session's own rules, as OpenCode's clients send
	// them. They can only tighten the user's rules: their deny and ask
	// rules apply, their allow rules never loosen anything.
	Permission []PermissionRule `json:"permission,omitempty"`
	// Sandbox is an OS sandbox mode ("workspace-write", "read-only") the
	// session's shell commands run in at least; a looser mode than the
	// configured one changes nothing.
	Sandbox string `json:"sandbox,omitempty"`
}

// UpdateSessionInput changes a session; nil fields stay.
type UpdateSessionInput struct {
	Title *string `json:"title,omitempty"`
	// Permission are rules added to the session's own (see
	// CreateSessionInput.Permission); a rule it has already is not
	// added twice.
	Permission []PermissionRule `json:"permission,omitempty"`
	// Sandbox makes the session's sandbox mode stricter (see
	// CreateSessionInput.Sandbox); it never makes it looser.
	Sandbox string `json:"sandbox,omitempty"`
}

// ForkSessionInput says where to fork: before MessageID, or everything
// when it is empty.
type ForkSessionInput struct {
	MessageID string `json:"messageID,omitempty"`
}

// RevertInput names the message (and optionally the part) to revert to.
type RevertInput struct {
	MessageID string `json:"messageID"`
	PartID    string `json:"partID,omitempty"`
	// Force overwrites files changed since the agent wrote them; without
	// it such files stop the revert and are listed in its error.
	Force bool `json:"force,omitempty"`
}

// MessagesOptions page through a session's messages.
type MessagesOptions struct {
	// Limit keeps only the newest Limit messages; zero keeps all.
	Limit int `json:"limit,omitempty"`
	// Before keeps only the messages older than this message id.
	Before string `json:"before,omitempty"`
}

// Message is a message's info with its parts in order.
type Message struct {
	Info  MessageInfo `json:"info"`
	Parts []Part      `json:"parts"`
}

// MessageInfo is a message's record. Role selects the fields in use: a
// user message has Model (and System); an assistant message has ParentID
// through Error.
type MessageInfo struct {
	ID        string      `json:"id"`
	SessionID string      `json:"sessionID"`
	Role      string      `json:"role"` // "user" or "assistant"
	Time      MessageTime `json:"time"`
	Agent     string      `json:"agent"`

	// User messages.
	Model  *ModelRef `json:"model,omitempty"`
	System string    `json:"system,omitempty"`

	// Assistant messages.
	ParentID   string        `json:"parentID,omitempty"`
	ModelID    string        `json:"modelID,omitempty"`
	ProviderID string        `json:"providerID,omitempty"`
	Mode       string        `json:"mode,omitempty"`
	Variant    string        `json:"variant,omitempty"`
	Path       *MessagePath  `json:"path,omitempty"`
	Summary    bool          `json:"summary,omitempty"`
	Cost       float64       `json:"cost,omitempty"`
	Tokens     *Tokens       `json:"tokens,omitempty"`
	Finish     string        `json:"finish,omitempty"`
	Error      *MessageError `json:"error,omitempty"`
}

// The message roles.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// MessageTime holds a message's creation and, for an answer, completion
// time in Unix milliseconds.
type MessageTime struct {
	Created   int64 `json:"created"`
	Completed int64 `json:"completed,omitempty"`
}

// MessagePath is where an answer ran.
type MessagePath struct {
	Cwd  string `json:"cwd"`
	Root string `json:"root"`
}

// ModelRef names a model and its reasoning variant.
type ModelRef struct {
	ProviderID string `json:"providerID"`
	ModelID    string `json:"modelID"`
	Variant    string `json:"variant,omitempty"`
}

// String is "provider/model".
func (m ModelRef) String() string { return m.ProviderID + "/" + m.ModelID }

// Tokens counts the tokens of a step, a message or a session. Input
// excludes cached tokens and Output excludes reasoning.
type Tokens struct {
	Total     int64       `json:"total,omitempty"`
	Input     int64       `json:"input"`
	Output    int64       `json:"output"`
	Reasoning int64       `json:"reasoning"`
	Cache     TokensCache `json:"cache"`
}

// TokensCache counts cached prompt tokens read and written.
type TokensCache struct {
	Read  int64 `json:"read"`
	Write int64 `json:"write"`
}

// Count is the number of tokens the context held.
func (t Tokens) Count() int64 {
	if t.Total != 0 {
		return t.Total
	}
	return t.Input + t.Output + t.Reasoning + t.Cache.Read + t.Cache.Write
}

// CacheReadShare is the share of the input tokens (uncached, cache read
// and cache written) that were read from the prompt cache, 0 to 1; ok is
// false when there were no input tokens.
func (t Tokens) CacheReadShare() (share float64, ok bool) {
	all := t.Input + t.Cache.Read + t.Cache.Write
	if all <= 0 {
		return 0, false
	}
	return float64(t.Cache.Read) / float64(all), true
}

// MessageError is how an answer failed, as {name, data}. Name is one of
// OpenCode's error kinds (APIError, ProviderAuthError,
// MessageAbortedError, ...).
type MessageError struct {
	Name string           `json:"name"`
	Data MessageErrorData `json:"data"`
}

// MessageErrorData holds the fields the error kinds use.
type MessageErrorData struct {
	Message     string `json:"message,omitempty"`
	ProviderID  string `json:"providerID,omitempty"`
	StatusCode  int    `json:"statusCode,omitempty"`
	IsRetryable *bool  `json:"isRetryable,omitempty"`
}

// Error is the message, or the kind when there is none.
func (e *MessageError) Error() string {
	if e.Data.Message != "" {
		return e.Data.Message
	}
	return e.Name
}

// Part types.
const (
	PartText       = "text"
	PartReasoning  = "reasoning"
	PartFile       = "file"
	PartTool       = "tool"
	PartStepStart  = "step-start"
	PartStepFinish = "step-finish"
	PartSnapshot   = "snapshot"
	PartPatch      = "patch"
	PartAgent      = "agent"
	PartSubtask    = "subtask"
	PartRetry      = "retry"
	PartCompaction = "compaction"
)

// Part is one piece of a message. Type selects the fields in use:
//
//	text, reasoning  Text, Synthetic, Ignored, Time (Start, End)
//	file             Mime, Filename, URL, Source
//	tool             CallID, Tool, State
//	step-start       Snapshot
//	step-finish      Reason, Snapshot, Cost, Tokens
//	snapshot         Snapshot
//	patch            Hash, Files
//	agent            Name, Source
//	subtask          Prompt, Description, Agent, Model, Command
//	retry            Attempt, Error, Time (Created)
//	compaction       Auto, Overflow
type Part struct {
	ID        string `json:"id"`
	SessionID string `json:"sessionID"`
	MessageID string `json:"messageID"`
	Type      string `json:"type"`

	Text      string    `json:"text,omitempty"`
	Synthetic bool      `json:"synthetic,omitempty"`
	Ignored   bool      `json:"ignored,omitempty"`
	Time      *PartTime `json:"time,omitempty"`

	Mime     string          `json:"mime,omitempty"`
	Filename string          `json:"filename,omitempty"`
	URL      string          `json:"url,omitempty"`
	Source   json.RawMessage `json:"source,omitempty"`

	CallID string     `json:"callID,omitempty"`
	Tool   string     `json:"tool,omitempty"`
	State  *ToolState `json:"state,omitempty"`
	// Kind is what a tool call does (read, edit, delete, move, execute,
	// search, fetch, think or other), Touches the files it reads or
	// changes and Summary one line about what it works on (the command,
	// the file, the pattern), as the tool describes them.
	Kind    string      `json:"kind,omitempty"`
	Touches []ToolTouch `json:"touches,omitempty"`
	Summary string      `json:"summary,omitempty"`

	Reason   string  `json:"reason,omitempty"`
	Snapshot string  `json:"snapshot,omitempty"`
	Cost     float64 `json:"cost,omitempty"`
	Tokens   *Tokens `json:"tokens,omitempty"`

	Hash  string   `json:"hash,omitempty"`
	Files []string `json:"files,omitempty"`
	// Skipped are the changed files a patch could not keep for revert,
	// each with the reason.
	Skipped []string `json:"skipped,omitempty"`

	Name string `json:"name,omitempty"`

	Prompt      string    `json:"prompt,omitempty"`
	Description string    `json:"description,omitempty"`
	Agent       string    `json:"agent,omitempty"`
	Model       *ModelRef `json:"model,omitempty"`
	Command     string    `json:"command,omitempty"`

	Attempt int           `json:"attempt,omitempty"`
	Error   *MessageError `json:"error,omitempty"`

	Auto     bool `json:"auto,omitempty"`
	Overflow bool `json:"overflow,omitempty"`
}

// PartTime is when a part started and ended (text, reasoning) or was
// recorded (retry), in Unix milliseconds.
type PartTime struct {
	Start   int64 `json:"start,omitempty"`
	End     int64 `json:"end,omitempty"`
	Created int64 `json:"created,omitempty"`
}

// Tool call statuses.
const (
	ToolPending   = "pending"
	ToolRunning   = "running"
	ToolCompleted = "completed"
	ToolError     = "error"
)

// ToolState is the state of a tool call: pending while its input streams,
// running, then completed (Output) or error (Error).
type ToolState struct {
	Status   string          `json:"status"`
	Input    json.RawMessage `json:"input,omitempty"`
	Raw      string          `json:"raw,omitempty"`
	Output   string          `json:"output,omitempty"`
	Title    string          `json:"title,omitempty"`
	Metadata map[string]any  `json:"metadata,omitempty"`
	Error    string          `json:"error,omitempty"`
	Time     *ToolTime       `json:"time,omitempty"`
}

// ToolTouch is a file a tool call reads or changes: its absolute path,
// the first line read when known, and whether the call changes it.
type ToolTouch struct {
	Path  string `json:"path"`
	Line  int    `json:"line,omitempty"`
	Write bool   `json:"write,omitempty"`
}

// The kinds of tool calls (Part.Kind), as tools describe themselves.
const (
	KindRead    = "read"
	KindEdit    = "edit"
	KindDelete  = "delete"
	KindMove    = "move"
	KindExecute = "execute"
	KindSearch  = "search"
	KindFetch   = "fetch"
	KindThink   = "think"
	KindOther   = "other"
)

// ToolTime holds a call's start and end in Unix milliseconds.
type ToolTime struct {
	Start int64 `json:"start"`
	End   int64 `json:"end,omitempty"`
}

// PromptInput is a message from the user.
type PromptInput struct {
	// Agent answers the message; empty for the session's or the default.
	Agent string `json:"agent,omitempty"`
	// Model answers the message; nil for the agent's, the session's or the
	// default.
	Model *ModelRef `json:"model,omitempty"`
	// System is extra system text for this message.
	System string `json:"system,omitempty"`
	// NoReply stores the message without starting the loop.
	NoReply bool `json:"noReply,omitempty"`
	// Parts are the message: text, and files to attach.
	Parts []PartInput `json:"parts"`
	// Files, when set, is where the file tools read and write text while
	// the message is answered (an editor's buffers); nil means the disk.
	// Only the in-process client carries it.
	Files FileSystem `json:"-"`
	// Terminal, when set, is where the bash tool runs its commands while
	// the message is answered (an editor's terminals) unless a sandbox
	// mode is on; nil means codeloop's shell. Only the in-process client
	// carries it.
	Terminal Terminal `json:"-"`
}

// FileSystem reads and writes the text of files, given absolute paths,
// somewhere other than the local disk: an editor's buffers, which may hold
// changes not yet saved.
type FileSystem interface {
	// ReadTextFile returns the current text of the file at path.
	ReadTextFile(ctx context.Context, path string) (string, error)
	// WriteTextFile replaces the text of the file at path, creating it
	// when it does not exist.
	WriteTextFile(ctx context.Context, path, content string) error
}

// Terminal runs commands in terminals somewhere other than codeloop's own
// process: an editor's, which show the user a command's output as it runs.
// A terminal is named by the id CreateTerminal returns, and every terminal
// created must be released.
type Terminal interface {
	// CreateTerminal starts argv (the program, then its arguments) in the
	// directory dir with env (NAME=value entries) set, and returns the
	// terminal's id. The terminal keeps at most outputLimit bytes of the
	// output, dropping its start. sessionID and callID name the session
	// and the tool call the command runs for.
	CreateTerminal(ctx context.Context, sessionID, callID string, argv, env []string, dir string, outputLimit int) (string, error)
	// TerminalOutput returns the output so far and whether its start was
	// dropped.
	TerminalOutput(ctx context.Context, id string) (output string, truncated bool, err error)
	// WaitForTerminalExit waits until the command has ended and returns
	// its exit code, or -1 and the name of the signal that ended it.
	WaitForTerminalExit(ctx context.Context, id string) (exitCode int, signal string, err error)
	// KillTerminal ends the command; its output stays readable.
	KillTerminal(ctx context.Context, id string) error
	// ReleaseTerminal ends the command if it still runs and frees the
	// terminal.
	ReleaseTerminal(ctx context.Context, id string) error
}

// PartInput is a part of a user's message: {type:"text", text} or
// {type:"file", mime, filename, url} with a file: or data: URL. The @
// mentions of text parts (files, directories, sub-agents, MCP resources)
// are attached as the engine resolves them.
type PartInput struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	Mime     string `json:"mime,omitempty"`
	Filename string `json:"filename,omitempty"`
	URL      string `json:"url,omitempty"`
}

// TextInput returns a text part for a PromptInput.
func TextInput(text string) PartInput { return PartInput{Type: PartText, Text: text} }

// ShellInput is a shell command typed by the user.
type ShellInput struct {
	Command string    `json:"command"`
	Agent   string    `json:"agent,omitempty"`
	Model   *ModelRef `json:"model,omitempty"`
}

// CommandInput runs a slash command with the arguments typed after it.
type CommandInput struct {
	Command   string `json:"command"`
	Arguments string `json:"arguments"`
	// Parts are files to attach to the expanded message.
	Parts []PartInput `json:"parts,omitempty"`
	Agent string      `json:"agent,omitempty"`
	Model *ModelRef   `json:"model,omitempty"`
	// Files and Terminal are as PromptInput's.
	Files    FileSystem `json:"-"`
	Terminal Terminal   `json:"-"`
}

// PermissionRequest asks the user to allow an action.
type PermissionRequest struct {
	ID         string         `json:"id"`
	SessionID  string         `json:"sessionID"`
	Permission string         `json:"permission"`
	Patterns   []string       `json:"patterns"`
	Metadata   map[string]any `json:"metadata,omitempty"`
	// Always are the patterns an "always" reply approves from then on.
	Always []string `json:"always"`
	Tool   *ToolRef `json:"tool,omitempty"`
	// Reason says why the request could not be checked against the rules,
	// when it could not (it is then never approved automatically), or,
	// with Protected, what is protected.
	Reason string `json:"reason,omitempty"`
	// Protected marks a request asked every time, which nothing approves
	// automatically and an "always" reply approves once (a secret file's
	// content, git's or codeloop's own files).
	Protected bool `json:"protected,omitempty"`
}

// ToolRef ties a request to the tool call that made it.
type ToolRef struct {
	MessageID string `json:"messageID"`
	CallID    string `json:"callID"`
}

// The replies to a permission request.
const (
	ReplyOnce   = "once"
	ReplyAlways = "always"
	ReplyReject = "reject"
)

// The scopes an "always" reply is kept in.
const (
	ScopeSession = "session"
	ScopeProject = "project"
	ScopeGlobal  = "global"
)

// PermissionReply answers a permission request: once, always (kept in
// Scope, the session by default) or reject (with Message, the user's
// correction for the model, when given).
type PermissionReply struct {
	Reply   string `json:"reply"`
	Message string `json:"message,omitempty"`
	Scope   string `json:"scope,omitempty"`
}

// QuestionRequest holds questions the model asks the user.
type QuestionRequest struct {
	ID        string         `json:"id"`
	SessionID string         `json:"sessionID"`
	Questions []QuestionInfo `json:"questions"`
	Tool      *ToolRef       `json:"tool,omitempty"`
}

// QuestionInfo is one question and the answers offered.
type QuestionInfo struct {
	Question string           `json:"question"`
	Header   string           `json:"header"`
	Options  []QuestionOption `json:"options"`
	Multiple bool             `json:"multiple,omitempty"`
}

// QuestionOption is an answer offered.
type QuestionOption struct {
	Label       string `json:"label"`
	Description string `json:"description"`
}

// Todo is an item of a session's todo list.
type Todo struct {
	ID       string `json:"id,omitempty"`
	Content  string `json:"content"`
	Status   string `json:"status"`
	Priority string `json:"priority"`
}

// ModelCatalog is what a model picker shows.
type ModelCatalog struct {
	Providers []Provider `json:"providers"`
	// Default is the model a prompt without one is answered with; nil when
	// no model is usable.
	Default *ModelRef `json:"default,omitempty"`
	// Recent are the models used last, newest first.
	Recent []ModelRef `json:"recent,omitempty"`
}

// Provider is a usable model provider and its models.
type Provider struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Source string `json:"source,omitempty"` // config, auth, env, local
	// Env are the environment variables that can hold its key.
	Env    []string `json:"env,omitempty"`
	Models []Model  `json:"models"`
}

// Model is a model of a provider.
type Model struct {
	ID          string      `json:"id"`
	ProviderID  string      `json:"providerID"`
	Name        string      `json:"name"`
	Family      string      `json:"family,omitempty"`
	Limit       ModelLimit  `json:"limit"`
	Cost        ModelCost   `json:"cost"`
	Reasoning   bool        `json:"reasoning"`
	ToolCall    bool        `json:"tool_call"`
	Attachment  bool        `json:"attachment"`
	Temperature bool        `json:"temperature,omitempty"`
	Variants    []string    `json:"variants,omitempty"`
	Status      string      `json:"status,omitempty"`
	ReleaseDate string      `json:"release_date,omitempty"`
	Modalities  *Modalities `json:"modalities,omitempty"`
	// NPM is the AI SDK package whose API the model speaks
	// ("@ai-sdk/openai-compatible"); APIURL its endpoint when not the
	// package's default.
	NPM    string `json:"npm,omitempty"`
	APIURL string `json:"apiURL,omitempty"`
}

// ModelLimit holds a model's token limits; zero is unknown.
type ModelLimit struct {
	Context int64 `json:"context"`
	Input   int64 `json:"input,omitempty"`
	Output  int64 `json:"output"`
}

// ModelCost holds prices in US dollars per million tokens.
type ModelCost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cache_read,omitempty"`
	CacheWrite float64 `json:"cache_write,omitempty"`
}

// Modalities lists what a model reads and writes.
type Modalities struct {
	Input  []string `json:"input,omitempty"`
	Output []string `json:"output,omitempty"`
}

// Agent is an agent the user can pick (primary) or mention (sub-agent).
type Agent struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Mode        string `json:"mode"` // primary, subagent or all
	Native      bool   `json:"native,omitempty"`
	Hidden      bool   `json:"hidden,omitempty"`
	Model       string `json:"model,omitempty"` // provider/model, empty for the caller's
	Variant     string `json:"variant,omitempty"`
	Color       string `json:"color,omitempty"`
	// Steps caps the model steps of one turn; 0 for no cap.
	Steps       int      `json:"steps,omitempty"`
	Temperature *float64 `json:"temperature,omitempty"`
	TopP        *float64 `json:"topP,omitempty"`
	// Permission is the agent's whole ruleset: the defaults, the user's
	// rules and its own.
	Permission []PermissionRule `json:"permission,omitempty"`
	// Options are merged into the provider options of its requests.
	Options map[string]any `json:"options,omitempty"`
}

// Primary reports whether the agent can answer a session's prompts.
func (a Agent) Primary() bool { return a.Mode != "subagent" }

// Command is a slash command.
type Command struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Agent       string `json:"agent,omitempty"`
	Model       string `json:"model,omitempty"`
	Subtask     bool   `json:"subtask,omitempty"`
	// Source is OpenCode's kind: "command", "mcp" (an MCP server's
	// prompt) or "skill".
	Source string `json:"source,omitempty"`
	// Origin says where the command comes from: builtin, config, mcp,
	// skill or a file's path.
	Origin string `json:"origin,omitempty"`
	// Template is the prompt the command expands, before its arguments
	// are put in; empty for an MCP prompt, fetched from its server.
	Template     string   `json:"template"`
	ArgumentHint string   `json:"argumentHint,omitempty"`
	Hints        []string `json:"hints"`
}
