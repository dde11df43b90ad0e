package wire

// The routes of codeloop's HTTP API, OpenCode's where OpenCode has them.
var (
	GlobalHealth        = Route{Method: "GET", Pattern: "/global/health", ID: "global.health", Summary: "Report that the server is up, with its version"}
	PathGet             = Route{Method: "GET", Pattern: "/path", ID: "path.get", Summary: "The project's directories"}
	ConfigGet           = Route{Method: "GET", Pattern: "/config", ID: "config.get", Summary: "The project's resolved config, secrets masked"}
	ConfigProviders     = Route{Method: "GET", Pattern: "/config/providers", ID: "config.providers", Summary: "The usable providers and models, and the default model"}
	ProviderList        = Route{Method: "GET", Pattern: "/provider", ID: "provider.list", Summary: "The usable providers, their default models and which are connected"}
	AppAgents           = Route{Method: "GET", Pattern: "/agent", ID: "app.agents", Summary: "The agents"}
	CommandList         = Route{Method: "GET", Pattern: "/command", ID: "command.list", Summary: "The project's slash commands"}
	SessionList         = Route{Method: "GET", Pattern: "/session", ID: "session.list", Summary: "The project's sessions, newest first"}
	SessionCreate       = Route{Method: "POST", Pattern: "/session", ID: "session.create", Summary: "Create a session"}
	SessionStatus       = Route{Method: "GET", Pattern: "/session/status", ID: "session.status", Summary: "The status of every session that is not idle"}
	SessionGet          = Route{Method: "GET", Pattern: "/session/{sessionID}", ID: "session.get", Summary: "A session"}
	SessionUpdate       = Route{Method: "PATCH", Pattern: "/session/{sessionID}", ID: "session.update", Summary: "Change a session's title"}
	SessionDelete       = Route{Method: "DELETE", Pattern: "/session/{sessionID}", ID: "session.delete", Summary: "Delete a session with its messages and children, stopping its loop"}
	SessionChildren     = Route{Method: "GET", Pattern: "/session/{sessionID}/children", ID: "session.children", Summary: "The sessions a session's sub-agents started"}
	SessionFork         = Route{Method: "POST", Pattern: "/session/{sessionID}/fork", ID: "session.fork", Summary: "Copy a session, up to a message when one is named"}
	SessionAbort        = Route{Method: "POST", Pattern: "/session/{sessionID}/abort", ID: "session.abort", Summary: "Interrupt a session's loop and shell command; what streamed is kept"}
	SessionSummarize    = Route{Method: "POST", Pattern: "/session/{sessionID}/summarize", ID: "session.summarize", Summary: "Start compacting a session's history; the outcome arrives as events"}
	SessionRevert       = Route{Method: "POST", Pattern: "/session/{sessionID}/revert", ID: "session.revert", Summary: "Undo the file changes made after a message and hide the messages from it on (501 where file snapshots are not available)"}
	SessionUnrevert     = Route{Method: "POST", Pattern: "/session/{sessionID}/unrevert", ID: "session.unrevert", Summary: "Restore what a revert hid"}
	SessionMessages     = Route{Method: "GET", Pattern: "/session/{sessionID}/message", ID: "session.messages", Summary: "A session's messages with their parts, oldest first"}
	SessionMessage      = Route{Method: "GET", Pattern: "/session/{sessionID}/message/{messageID}", ID: "session.message", Summary: "One message with its parts"}
	SessionPrompt       = Route{Method: "POST", Pattern: "/session/{sessionID}/message", ID: "session.prompt", Summary: "Send a message and wait for the answer, which is returned"}
	SessionPromptAsync  = Route{Method: "POST", Pattern: "/session/{sessionID}/prompt_async", ID: "session.prompt_async", Summary: "Send a message and return at once; the answer arrives as events"}
	SessionCommand      = Route{Method: "POST", Pattern: "/session/{sessionID}/command", ID: "session.command", Summary: "Run a slash command and wait for the answer, which is returned"}
	SessionCommandAsync = Route{Method: "POST", Pattern: "/session/{sessionID}/command_async", ID: "session.command_async", Summary: "Run a slash command and return at once (codeloop's addition)"}
	SessionShell        = Route{Method: "POST", Pattern: "/session/{sessionID}/shell", ID: "session.shell", Summary: "Run a shell command in the session and return the answer that records it (409 while the loop runs)"}
	PermissionList      = Route{Method: "GET", Pattern: "/permission", ID: "permission.list", Summary: "The permission requests waiting for a reply"}
	PermissionReply     = Route{Method: "POST", Pattern: "/permission/{requestID}/reply", ID: "permission.reply", Summary: "Answer a permission request: once, always (kept in scope) or reject"}
	PermissionRespond   = Route{Method: "POST", Pattern: "/session/{sessionID}/permissions/{permissionID}", ID: "permission.respond", Summary: "Answer a permission request (the older route)"}
	QuestionList        = Route{Method: "GET", Pattern: "/question", ID: "question.list", Summary: "The questions waiting for an answer"}
	QuestionReply       = Route{Method: "POST", Pattern: "/question/{requestID}/reply", ID: "question.reply", Summary: "Answer a question"}
	QuestionReject      = Route{Method: "POST", Pattern: "/question/{requestID}/reject", ID: "question.reject", Summary: "Dismiss a question; the loop stops"}
	EventSubscribe      = Route{Method: "GET", Pattern: "/event", ID: "event.subscribe", Summary: "The engine's events as server-sent events: server.connected first, server.heartbeat every 10 s"}
	GlobalEvent         = Route{Method: "GET", Pattern: "/global/event", ID: "global.event", Summary: "The engine's events as server-sent events, each in OpenCode's envelope {directory, payload}"}
	SessionContext      = Route{Method: "GET", Pattern: "/session/{sessionID}/context", ID: "session.context", Summary: "What fills a session's context window, by part, and its cost (codeloop's addition)"}
	MCPStatus           = Route{Method: "GET", Pattern: "/mcp", ID: "mcp.status", Summary: "The state of every configured MCP server, by name"}
	LSPStatus           = Route{Method: "GET", Pattern: "/lsp", ID: "lsp.status", Summary: "The language servers started so far"}
	DocGet              = Route{Method: "GET", Pattern: "/doc", ID: "doc.get", Summary: "This API's OpenAPI 3.1 description"}
)

// Routes lists every route, in the order GET /doc describes them.
func Routes() []Route {
	return append([]Route{
		GlobalHealth,
		PathGet,
		ConfigGet,
		ConfigProviders,
		ProviderList,
		AppAgents,
		CommandList,
		SessionList,
		SessionCreate,
		SessionStatus,
		SessionGet,
		SessionUpdate,
		SessionDelete,
		SessionChildren,
		SessionFork,
		SessionAbort,
		SessionSummarize,
		SessionRevert,
		SessionUnrevert,
		SessionMessages,
		SessionMessage,
		SessionPrompt,
		SessionPromptAsync,
		SessionCommand,
		SessionCommandAsync,
		SessionShell,
		PermissionList,
		PermissionReply,
		PermissionRespond,
		QuestionList,
		QuestionReply,
		QuestionReject,
		SessionContext,
		MCPStatus,
		LSPStatus,
		EventSubscribe,
		GlobalEvent,
		DocGet,
	}, WorkspaceRoutes()...)
}
