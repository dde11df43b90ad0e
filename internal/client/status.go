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
