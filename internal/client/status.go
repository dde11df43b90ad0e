package client

// MCPStatus is the state of one configured MCP server, in OpenCode's
// shape: Status is "connected", "connecting", "disabled", "failed" or
// "needs_auth"; Error says why it failed.
type MCPStatus struct {
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
}

// The MCP server states.
const (
	MCPConnected  = "connected"
	MCPConnecting = "connecting"
	MCPDisabled   = "disabled"
	MCPFailed     = "failed"
	MCPNeedsAuth  = "needs_auth"
)

// LSPStatus is one language server started for the project, in
// OpenCode's shape: ID and Name name the server, Root is the directory it
// serves relative to the project ("" or "." for the project itself), and
// Status is "connected" while it runs, "error" when it ended.
type LSPStatus struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Root   string `json:"root"`
	Status string `json:"status"`
}

// The language server states.
const (
	LSPConnected = "connected"
	LSPError     = "error"
)

// ContextUsage is what fills a session's context window at its newest
// prompt (codeloop's addition): estimates by part, a token per four
// characters, and the tokens the model counted at its last step.
type ContextUsage struct {
	// Model is the model of the newest prompt, nil before any; Limit its
	// window, 0 when unknown.
	Model *ModelRef `json:"model,omitempty"`
	Limit int64     `json:"limit"`
	// Used is what the model counted at the last step, 0 before any.
	Used int64 `json:"used"`
	// Parts are in the order the request holds them: the system prompt,
	// each instruction file, the tools, the messages, the tool outputs.
	Parts []ContextPart `json:"parts"`
	// Compactable estimates the history a compaction would replace with
	// a summary: everything before the turns it keeps.
	Compactable int64 `json:"compactable"`
	// Cost is the session's cost so far in US dollars; TurnCost that of
	// the answers to its newest prompt.
	Cost     float64 `json:"cost"`
	TurnCost float64 `json:"turnCost"`
}

// ContextPart is one part of the context window. Kind is "system",
// "instruction" (Name is the file's path or URL), "tools", "messages" or
// "tool_output".
type ContextPart struct {
	Kind   string `json:"kind"`
	Name   string `json:"name,omitempty"`
	Tokens int64  `json:"tokens"`
}

// The kinds of ContextPart.
const (
	ContextSystem      = "system"
	ContextInstruction = "instruction"
	ContextTools       = "tools"
	ContextMessages    = "messages"
	ContextToolOutput  = "tool_output"
)

// Auth is a provider's credential, in OpenCode's shape: Type "api" with
// its Key.
type Auth struct {
	Type string `json:"type"`
	Key  string `json:"key,omitempty"`
}
