package wire

import "github.com/codeloop/codeloop/internal/client"

// The routes that show the project, its files and searches, a session's
// todos and changes, and the tools and skills: OpenCode's, served where
// the client is a client.Workspace.
var (
	ProjectList     = Route{Method: "GET", Pattern: "/project", ID: "project.list", Summary: "The projects: the one this server serves"}
	ProjectCurrent  = Route{Method: "GET", Pattern: "/project/current", ID: "project.current", Summary: "The project this server serves"}
	VcsGet          = Route{Method: "GET", Pattern: "/vcs", ID: "vcs.get", Summary: "The project's git branch"}
	VcsStatus       = Route{Method: "GET", Pattern: "/vcs/status", ID: "vcs.status", Summary: "The files git sees changed, in the v2 shape"}
	FormatterStatus = Route{Method: "GET", Pattern: "/formatter", ID: "formatter.status", Summary: "The configured formatters and whether each runs"}
	ProviderAuth    = Route{Method: "GET", Pattern: "/provider/auth", ID: "provider.auth", Summary: "The ways to sign in to each provider over HTTP: none, credentials are set with codeloop auth"}
	SessionTodo     = Route{Method: "GET", Pattern: "/session/{sessionID}/todo", ID: "session.todo", Summary: "A session's todo list"}
	SessionDiff     = Route{Method: "GET", Pattern: "/session/{sessionID}/diff", ID: "session.diff", Summary: "The file changes a session made, or one message's (none where file snapshots are off)"}
	FileList        = Route{Method: "GET", Pattern: "/file", ID: "file.list", Summary: "A directory of the project, each entry marked when ignored"}
	FileRead        = Route{Method: "GET", Pattern: "/file/content", ID: "file.read", Summary: "A file's content (403 outside the project, ignored, or a secret file)"}
	FileStatus      = Route{Method: "GET", Pattern: "/file/status", ID: "file.status", Summary: "The files git sees changed"}
	FindText        = Route{Method: "GET", Pattern: "/find", ID: "find.text", Summary: "Search the project's files for a regular expression, as the grep tool does"}
	FindFiles       = Route{Method: "GET", Pattern: "/find/file", ID: "find.files", Summary: "Find the project's files and directories by name"}
	FsFind          = Route{Method: "GET", Pattern: "/api/fs/find", ID: "fs.find", Summary: "Find the project's files and directories by name, in the shape OpenCode's terminal interface reads for @ completion"}
	FindSymbols     = Route{Method: "GET", Pattern: "/find/symbol", ID: "find.symbols", Summary: "The workspace symbols the running language servers know"}
	ToolIDs         = Route{Method: "GET", Pattern: "/experimental/tool/ids", ID: "tool.ids", Summary: "The ids of the tools the model may be offered"}
	ToolList        = Route{Method: "GET", Pattern: "/experimental/tool", ID: "tool.list", Summary: "The tools the model may be offered, with their parameters' schemas"}
	AppSkills       = Route{Method: "GET", Pattern: "/skill", ID: "app.skills", Summary: "The skills"}
	AppLog          = Route{Method: "POST", Pattern: "/log", ID: "app.log", Summary: "Write a client's line to the server's log"}
	GlobalConfig    = Route{Method: "GET", Pattern: "/global/config", ID: "global.config.get", Summary: "The resolved config, secrets masked (the same as GET /config)"}
)

// WorkspaceRoutes lists the routes above, in the order GET /doc describes
// them.
func WorkspaceRoutes() []Route {
	return []Route{ProjectList, ProjectCurrent, VcsGet, VcsStatus, FormatterStatus, ProviderAuth, SessionTodo, SessionDiff,
		FileList, FileRead, FileStatus, FindText, FindFiles, FsFind, FindSymbols, ToolIDs, ToolList, AppSkills, AppLog, GlobalConfig}
}

// PathQuery is the query of GET /file and GET /file/content.
type PathQuery struct {
	Path string `json:"path"`
}

// FindTextQuery is the query of GET /find.
type FindTextQuery struct {
	Pattern string `json:"pattern"`
	Limit   int    `json:"limit,omitempty"`
}

// FindSymbolsQuery is the query of GET /find/symbol.
type FindSymbolsQuery struct {
	Query string `json:"query"`
}

// FindFilesQuery is the query of GET /find/file.
type FindFilesQuery = client.FindFilesInput

// FsFindQuery is the query of GET /api/fs/find; the location OpenCode's
// interface also sends is the one project this server serves.
type FsFindQuery struct {
	Query string `json:"query"`
	Limit int    `json:"limit,omitempty"`
}

// FsFindResponse is the answer of GET /api/fs/find.
type FsFindResponse struct {
	Location FsLocation `json:"location"`
	Data     []FsEntry  `json:"data"`
}

// FsLocation is where a search ran: the project's directory.
type FsLocation struct {
	Directory string    `json:"directory"`
	Project   FsProject `json:"project"`
}

// FsProject names the project of a location.
type FsProject struct {
	ID        string `json:"id"`
	Directory string `json:"directory"`
}

// FsEntry is a file or directory found, its path relative to the project.
type FsEntry struct {
	Path string `json:"path"`
	Type string `json:"type"` // "file" or "directory"
}

// DiffQuery is the query of GET /session/{sessionID}/diff.
type DiffQuery struct {
	MessageID string `json:"messageID,omitempty"`
}

// ToolListQuery is the query of GET /experimental/tool; the tools do not
// depend on the model, so it is accepted and unused.
type ToolListQuery struct {
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
}

// VcsFileStatus is one file of GET /vcs/status.
type VcsFileStatus struct {
	File      string `json:"file"`
	Additions int    `json:"additions"`
	Deletions int    `json:"deletions"`
	Status    string `json:"status"`
}

// LogInput is the body of POST /log.
type LogInput struct {
	Service string         `json:"service"`
	Level   string         `json:"level"`
	Message string         `json:"message"`
	Extra   map[string]any `json:"extra,omitempty"`
}

// UnsupportedRoute is one of OpenCode's routes that codeloop answers with
// a 501 UnsupportedError, and why.
type UnsupportedRoute struct {
	Route
	Reason string
}

// Reasons of the unsupported routes.
const (
	whyOneProject = "codeloop serve serves the one project it was started in"
	whyAuth       = "credentials are set with codeloop auth on the command line, never over HTTP"
	whyMCP        = "MCP servers are set in the config files and signed in to with codeloop mcp auth"
	whyPty        = "codeloop serve has no pseudo-terminal service; run commands with POST /session/{sessionID}/shell"
	whyTUI        = "codeloop's terminal interface is not driven over HTTP"
	whyShare      = "codeloop has no share service; sessions stay on this machine"
	whyEdit       = "stored messages are not edited; revert a session to take messages back"
	whyVCS        = "git's changes are listed by GET /vcs/status, and a session's changes with their patches by GET /session/{sessionID}/diff"
	whySync       = "codeloop has no sync service"
	whyExperiment = "an experimental OpenCode feature codeloop does not have"
	whyAPI        = "OpenCode's newer /api routes are not served; the routes above carry the same operations"
	whyConfig     = "the config is read from its files; edit them and restart the server"
	whyUpgrade    = "upgrade with codeloop upgrade"
	whyInit       = "send the project's init command with POST /session/{sessionID}/command"
)

func unsupported(method, pattern, id, why string) UnsupportedRoute {
	return UnsupportedRoute{Route: Route{Method: method, Pattern: pattern, ID: id, Summary: "Not supported: " + why}, Reason: why}
}

// Unsupported lists OpenCode's routes that codeloop answers with a 501.
// A server that serves one of them for real leaves its entry out.
func Unsupported() []UnsupportedRoute {
	return []UnsupportedRoute{
		unsupported("POST", "/global/dispose", "global.dispose", whyOneProject),
		unsupported("POST", "/global/upgrade", "global.upgrade", whyUpgrade),
		unsupported("PATCH", "/global/config", "global.config.update", whyConfig),
		unsupported("PATCH", "/config", "config.update", whyConfig),
		unsupported("POST", "/instance/dispose", "instance.dispose", whyOneProject),
		unsupported("POST", "/project/git/init", "project.initGit", whyOneProject),
		unsupported("PATCH", "/project/{projectID}", "project.update", whyOneProject),
		unsupported("GET", "/project/{projectID}/directories", "project.directories", whyOneProject),
		unsupported("PUT", "/auth/{providerID}", "auth.set", whyAuth),
		unsupported("DELETE", "/auth/{providerID}", "auth.remove", whyAuth),
		unsupported("POST", "/provider/{providerID}/oauth/authorize", "provider.oauth.authorize", whyAuth),
		unsupported("POST", "/provider/{providerID}/oauth/callback", "provider.oauth.callback", whyAuth),
		unsupported("POST", "/mcp", "mcp.add", whyMCP),
		unsupported("POST", "/mcp/{name}/connect", "mcp.connect", whyMCP),
		unsupported("POST", "/mcp/{name}/disconnect", "mcp.disconnect", whyMCP),
		unsupported("POST", "/mcp/{name}/auth", "mcp.auth.start", whyMCP),
		unsupported("DELETE", "/mcp/{name}/auth", "mcp.auth.remove", whyMCP),
		unsupported("POST", "/mcp/{name}/auth/callback", "mcp.auth.callback", whyMCP),
		unsupported("POST", "/mcp/{name}/auth/authenticate", "mcp.auth.authenticate", whyMCP),
		unsupported("GET", "/pty", "pty.list", whyPty),
		unsupported("POST", "/pty", "pty.create", whyPty),
		unsupported("GET", "/pty/shells", "pty.shells", whyPty),
		unsupported("GET", "/pty/{ptyID}", "pty.get", whyPty),
		unsupported("PUT", "/pty/{ptyID}", "pty.update", whyPty),
		unsupported("DELETE", "/pty/{ptyID}", "pty.remove", whyPty),
		unsupported("GET", "/pty/{ptyID}/connect", "pty.connect", whyPty),
		unsupported("POST", "/pty/{ptyID}/connect-token", "pty.connectToken", whyPty),
		unsupported("POST", "/session/{sessionID}/init", "session.init", whyInit),
		unsupported("POST", "/session/{sessionID}/share", "session.share", whyShare),
		unsupported("DELETE", "/session/{sessionID}/share", "session.unshare", whyShare),
		unsupported("DELETE", "/session/{sessionID}/message/{messageID}", "session.deleteMessage", whyEdit),
		unsupported("PATCH", "/session/{sessionID}/message/{messageID}/part/{partID}", "part.update", whyEdit),
		unsupported("DELETE", "/session/{sessionID}/message/{messageID}/part/{partID}", "part.delete", whyEdit),
		unsupported("GET", "/vcs/diff", "vcs.diff", whyVCS),
		unsupported("GET", "/vcs/diff/raw", "vcs.diff.raw", whyVCS),
		unsupported("POST", "/vcs/apply", "vcs.apply", whyVCS),
		unsupported("POST", "/sync/history", "sync.history.list", whySync),
		unsupported("POST", "/sync/start", "sync.start", whySync),
		unsupported("POST", "/sync/replay", "sync.replay", whySync),
		unsupported("POST", "/sync/steal", "sync.steal", whySync),
		unsupported("GET", "/tui/control/next", "tui.control.next", whyTUI),
		unsupported("POST", "/tui/control/response", "tui.control.response", whyTUI),
		unsupported("POST", "/tui/append-prompt", "tui.appendPrompt", whyTUI),
		unsupported("POST", "/tui/open-help", "tui.openHelp", whyTUI),
		unsupported("POST", "/tui/open-sessions", "tui.openSessions", whyTUI),
		unsupported("POST", "/tui/open-themes", "tui.openThemes", whyTUI),
		unsupported("POST", "/tui/open-models", "tui.openModels", whyTUI),
		unsupported("POST", "/tui/submit-prompt", "tui.submitPrompt", whyTUI),
		unsupported("POST", "/tui/clear-prompt", "tui.clearPrompt", whyTUI),
		unsupported("POST", "/tui/execute-command", "tui.executeCommand", whyTUI),
		unsupported("POST", "/tui/show-toast", "tui.showToast", whyTUI),
		unsupported("POST", "/tui/publish", "tui.publish", whyTUI),
		unsupported("POST", "/tui/select-session", "tui.selectSession", whyTUI),
		unsupported("POST", "/experimental/control-plane/move-session", "experimental.controlPlane.moveSession", whyExperiment),
		unsupported("GET", "/experimental/capabilities", "experimental.capabilities", whyExperiment),
		unsupported("GET", "/experimental/console", "experimental.console.get", whyExperiment),
		unsupported("GET", "/experimental/console/orgs", "experimental.console.listOrgs", whyExperiment),
		unsupported("POST", "/experimental/console/switch", "experimental.console.switchOrg", whyExperiment),
		unsupported("GET", "/experimental/session", "experimental.session.list", whyExperiment),
		unsupported("POST", "/experimental/session/{sessionID}/background", "experimental.session.background", whyExperiment),
		unsupported("GET", "/experimental/resource", "experimental.resource.list", whyExperiment),
		unsupported("POST", "/experimental/project/{projectID}/copy/generate-name", "experimental.projectCopy.generateName", whyExperiment),
		unsupported("POST", "/experimental/project/{projectID}/copy", "experimental.projectCopy.create", whyExperiment),
		unsupported("DELETE", "/experimental/project/{projectID}/copy", "experimental.projectCopy.remove", whyExperiment),
		unsupported("POST", "/experimental/project/{projectID}/copy/refresh", "experimental.projectCopy.refresh", whyExperiment),
		unsupported("GET", "/experimental/workspace/adapter", "experimental.workspace.adapter.list", whyExperiment),
		unsupported("GET", "/experimental/workspace", "experimental.workspace.list", whyExperiment),
		unsupported("POST", "/experimental/workspace", "experimental.workspace.create", whyExperiment),
		unsupported("POST", "/experimental/workspace/sync-list", "experimental.workspace.syncList", whyExperiment),
		unsupported("GET", "/experimental/workspace/status", "experimental.workspace.status", whyExperiment),
		unsupported("DELETE", "/experimental/workspace/{id}", "experimental.workspace.remove", whyExperiment),
		unsupported("POST", "/experimental/workspace/warp", "experimental.workspace.warp", whyExperiment),
		unsupported("GET", "/experimental/worktree", "worktree.list", whyExperiment),
		unsupported("POST", "/experimental/worktree", "worktree.create", whyExperiment),
		unsupported("DELETE", "/experimental/worktree", "worktree.remove", whyExperiment),
		unsupported("POST", "/experimental/worktree/reset", "worktree.reset", whyExperiment),
		unsupported("GET", "/api/{path...}", "api.get", whyAPI),
		unsupported("POST", "/api/{path...}", "api.post", whyAPI),
		unsupported("PUT", "/api/{path...}", "api.put", whyAPI),
		unsupported("PATCH", "/api/{path...}", "api.patch", whyAPI),
		unsupported("DELETE", "/api/{path...}", "api.delete", whyAPI),
	}
}
