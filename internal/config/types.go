// Package config loads codeloop's configuration: JSONC files in OpenCode's
// and codeloop's locations, {env:} and {file:} substitution, the merge order,
// strict validation with file, line and column in every error, and the JSON
// Schema generated from the types below.
//
// It imports only internal/paths and internal/trust; every other package
// may import it.
package config

import (
	"encoding/json"

	"github.com/codeloop/codeloop/internal/trust"
)

// Config is the whole configuration, the shape of one config file and of the
// merged result. The JSON names are OpenCode's, so an OpenCode config file is
// a codeloop config file.
type Config struct {
	Schema            string              `json:"$schema,omitempty" jsonschema:"JSON Schema of this file, for editors"`
	Shell             string              `json:"shell,omitempty" jsonschema:"shell used for commands and the bash tool"`
	LogLevel          string              `json:"logLevel,omitempty" jsonschema:"log level: DEBUG, INFO, WARN or ERROR"`
	Server            Server              `json:"server,omitzero" jsonschema:"HTTP server settings"`
	Command           map[string]Command  `json:"command,omitempty" jsonschema:"slash commands by name"`
	Skills            Skills              `json:"skills,omitzero" jsonschema:"extra places to find skills"`
	References        json.RawMessage     `json:"references,omitempty" jsonschema:"reference directories"`
	Reference         json.RawMessage     `json:"reference,omitempty" jsonschema:"deprecated: use references"`
	Watcher           Watcher             `json:"watcher,omitzero" jsonschema:"file watcher settings"`
	Snapshot          Snapshot            `json:"snapshot,omitzero" jsonschema:"keep what each step changes so it can be reverted: true (the default), false, or the store's bounds"`
	Plugin            []Plugin            `json:"plugin,omitempty" jsonschema:"plugins: a package spec or [spec, options]"`
	Share             string              `json:"share,omitempty" jsonschema:"session sharing: manual, auto or disabled"`
	Autoshare         *bool               `json:"autoshare,omitempty" jsonschema:"deprecated: use share"`
	Autoupdate        Autoupdate          `json:"autoupdate,omitempty" jsonschema:"update automatically: true, false or notify"`
	DisabledProviders []string            `json:"disabled_providers,omitempty" jsonschema:"providers never loaded"`
	EnabledProviders  []string            `json:"enabled_providers,omitempty" jsonschema:"when set, only these providers are loaded"`
	Model             string              `json:"model,omitempty" jsonschema:"default model as provider/model"`
	SmallModel        string              `json:"small_model,omitempty" jsonschema:"model for titles and other small tasks, as provider/model"`
	DefaultAgent      string              `json:"default_agent,omitempty" jsonschema:"primary agent used when none is chosen"`
	SubagentDepth     *int                `json:"subagent_depth,omitempty" jsonschema:"how deep subagents may start subagents"`
	Username          string              `json:"username,omitempty" jsonschema:"name shown for the user (default: the OS user)"`
	Mode              map[string]Agent    `json:"mode,omitempty" jsonschema:"deprecated: primary agents; use agent"`
	Agent             map[string]Agent    `json:"agent,omitempty" jsonschema:"agents by name"`
	Provider          map[string]Provider `json:"provider,omitempty" jsonschema:"provider settings and custom providers by id"`
	MCP               map[string]MCP      `json:"mcp,omitempty" jsonschema:"MCP servers by name"`
	Formatter         json.RawMessage     `json:"formatter,omitempty" jsonschema:"formatters run after edits when installed (true, the default); false turns them off; an object disables, changes or adds formatters by name"`
	LSP               json.RawMessage     `json:"lsp,omitempty" jsonschema:"language servers report errors after edits when installed (true, the default); false turns them off; an object disables, changes or adds servers by name"`
	Instructions      []string            `json:"instructions,omitempty" jsonschema:"extra instruction files or globs added to the system prompt"`
	Layout            string              `json:"layout,omitempty" jsonschema:"deprecated"`
	Permission        Permission          `json:"permission,omitempty" jsonschema:"permission rules"`
	Tools             map[string]bool     `json:"tools,omitempty" jsonschema:"deprecated: enable or disable tools; use permission"`
	Hooks             Hooks               `json:"hooks,omitempty" jsonschema:"commands run at points of a session, by event, in Claude Code's hooks format (see docs/hooks.md)"`
	CustomTools       []string            `json:"custom_tools,omitempty" jsonschema:"executables, or directories of them, offered to the model as tools (see docs/custom-tools.md)"`
	SecretFiles       []string            `json:"secret_files,omitempty" jsonschema:"patterns of files whose contents no tool reads, greps or attaches without the user's approval, added to the defaults; in the user's config a !pattern exempts files (see docs/secrets.md)"`
	Attachment        Attachment          `json:"attachment,omitzero" jsonschema:"attachment handling"`
	Enterprise        Enterprise          `json:"enterprise,omitzero" jsonschema:"enterprise settings"`
	ToolOutput        ToolOutput          `json:"tool_output,omitzero" jsonschema:"limits on tool output kept in context"`
	Retention         string              `json:"retention,omitempty" jsonschema:"delete this project's sessions not changed for this long when codeloop starts: days (90d) or weeks (12w), at least a day; unset keeps every session"`
	Compaction        Compaction          `json:"compaction,omitzero" jsonschema:"context compaction settings"`
	Sandbox           Sandbox             `json:"sandbox,omitzero" jsonschema:"OS confinement of the bash tool's commands (Linux)"`
	Search            Search              `json:"search,omitzero" jsonschema:"the web search service of the websearch and codesearch tools, which are offered only when it is set"`
	ACP               ACP                 `json:"acp,omitzero" jsonschema:"settings of codeloop acp, the Agent Client Protocol agent editors start"`
	TUI               TUI                 `json:"tui,omitzero" jsonschema:"settings of the terminal interface (see docs/tui.md)"`
	// Keybinds and Theme are where OpenCode's older files keep the
	// interface's keybinds and theme; Interface folds them under TUI.
	Keybinds     map[string]string `json:"keybinds,omitempty" jsonschema:"OpenCode's older place for the interface's keybinds; tui.keybinds wins for an action named in both"`
	Theme        Theme             `json:"theme,omitempty" jsonschema:"OpenCode's older place for the interface's theme; tui.theme wins"`
	Experimental Experimental      `json:"experimental,omitzero" jsonschema:"experimental settings"`
}

// Hooks are hook groups by event name (PreToolUse, Stop, ...), in the shape
// of Claude Code's settings key "hooks". Groups from several files are
// concatenated per event.
type Hooks map[string][]HookGroup

// HookGroup is a matcher and the handlers it runs.
type HookGroup struct {
	Matcher string        `json:"matcher,omitempty" jsonschema:"tool names (exact, | lists) or a regular expression; empty or * for all"`
	Hooks   []HookHandler `json:"hooks"`
	// Source is the file (or variable) that defined the group.
	Source string `json:"-"`
}

// HookHandler is one hook command.
type HookHandler struct {
	Type          string   `json:"type,omitempty" jsonschema:"command (the only type codeloop runs)"`
	Command       string   `json:"command,omitempty" jsonschema:"shell command, or the program when args is set"`
	Args          []string `json:"args,omitempty" jsonschema:"arguments: run command directly, without a shell"`
	Timeout       float64  `json:"timeout,omitempty" jsonschema:"seconds before the hook is stopped (default 60)"`
	StatusMessage string   `json:"statusMessage,omitempty" jsonschema:"accepted for compatibility; not shown"`
}

// Server configures the HTTP server.
type Server struct {
	Port       *int     `json:"port,omitempty"`
	Hostname   string   `json:"hostname,omitempty"`
	MDNS       *bool    `json:"mdns,omitempty"`
	MDNSDomain string   `json:"mdnsDomain,omitempty"`
	CORS       []string `json:"cors,omitempty"`
}

// Skills lists extra skill locations: directories searched for SKILL.md
// files and URLs of skill indexes.
type Skills struct {
	Paths []string `json:"paths,omitempty"`
	URLs  []string `json:"urls,omitempty"`
}

// Watcher configures the file watcher.
type Watcher struct {
	Ignore []string `json:"ignore,omitempty"`
}

// Plugin is one plugin entry: a package spec, optionally with options
// (written as [spec, options] in the file).
type Plugin struct {
	Spec    string
	Options map[string]any
}

// Autoupdate is "true", "false", "notify" or empty when unset. In the file
// it is a boolean or the string "notify".
type Autoupdate string

// Command is a slash command defined in the config.
type Command struct {
	Template    string `json:"template"`
	Description string `json:"description,omitempty"`
	Agent       string `json:"agent,omitempty"`
	Model       string `json:"model,omitempty"`
	Variant     string `json:"variant,omitempty"`
	Subtask     *bool  `json:"subtask,omitempty"`
	// Held marks a command of a project the user has not trusted: its
	// !`…` snippets do not run.
	Held bool `json:"-"`
}

// Agent configures one agent, built in or custom. Keys the type does not
// know are merged into Options, as OpenCode does.
type Agent struct {
	Model       string          `json:"model,omitempty"`
	Variant     string          `json:"variant,omitempty"`
	Prompt      string          `json:"prompt,omitempty"`
	Description string          `json:"description,omitempty"`
	Mode        string          `json:"mode,omitempty"` // primary, subagent or all
	Color       string          `json:"color,omitempty"`
	Temperature *float64        `json:"temperature,omitempty"`
	TopP        *float64        `json:"top_p,omitempty"`
	Steps       *int            `json:"steps,omitempty"`
	MaxSteps    *int            `json:"maxSteps,omitempty"` // deprecated: use Steps
	Hidden      *bool           `json:"hidden,omitempty"`
	Disable     *bool           `json:"disable,omitempty"`
	Tools       map[string]bool `json:"tools,omitempty"` // deprecated: use Permission
	Permission  Permission      `json:"permission,omitempty"`
	Options     map[string]any  `json:"options,omitempty"`
}

// Provider configures a provider from the catalog or defines a custom one.
type Provider struct {
	API       string                   `json:"api,omitempty"`
	Name      string                   `json:"name,omitempty"`
	Env       []string                 `json:"env,omitempty"`
	ID        string                   `json:"id,omitempty"`
	NPM       string                   `json:"npm,omitempty"`
	Whitelist []string                 `json:"whitelist,omitempty"`
	Blacklist []string                 `json:"blacklist,omitempty"`
	Options   ProviderOptions          `json:"options,omitzero"`
	Models    map[string]ProviderModel `json:"models,omitempty"`
}

// ProviderOptions are a provider's connection options. Keys the type does not
// know are kept in Extra and passed to the provider.
type ProviderOptions struct {
	APIKey        string            `json:"apiKey,omitempty"`
	BaseURL       string            `json:"baseURL,omitempty"`
	EnterpriseURL string            `json:"enterpriseUrl,omitempty"`
	SetCacheKey   *bool             `json:"setCacheKey,omitempty"`
	Timeout       *Timeout          `json:"timeout,omitempty"`       // whole request; false disables
	HeaderTimeout *Timeout          `json:"headerTimeout,omitempty"` // until response headers; false disables
	ChunkTimeout  *Timeout          `json:"chunkTimeout,omitempty"`  // between streamed chunks
	Headers       map[string]string `json:"headers,omitempty"`
	Extra         map[string]any    `json:"-"`
}

// Timeout is a duration in milliseconds, or Disabled when the file says false.
type Timeout struct {
	Millis   int
	Disabled bool
}

// ProviderModel describes or overrides one model of a provider. Keys the
// type does not know are kept in Extra.
type ProviderModel struct {
	ID           string                    `json:"id,omitempty"`
	Name         string                    `json:"name,omitempty"`
	Family       string                    `json:"family,omitempty"`
	ReleaseDate  string                    `json:"release_date,omitempty"`
	Attachment   *bool                     `json:"attachment,omitempty"`
	Reasoning    *bool                     `json:"reasoning,omitempty"`
	Temperature  *bool                     `json:"temperature,omitempty"`
	ToolCall     *bool                     `json:"tool_call,omitempty"`
	Interleaved  *Interleaved              `json:"interleaved,omitempty"`
	Cost         *Cost                     `json:"cost,omitempty"`
	Limit        *Limit                    `json:"limit,omitempty"`
	Modalities   *Modalities               `json:"modalities,omitempty"`
	Experimental *bool                     `json:"experimental,omitempty"`
	Status       string                    `json:"status,omitempty"` // alpha, beta, deprecated or active
	Provider     *ModelProvider            `json:"provider,omitempty"`
	Options      map[string]any            `json:"options,omitempty"`
	Headers      map[string]string         `json:"headers,omitempty"`
	Variants     map[string]map[string]any `json:"variants,omitempty"`
	Extra        map[string]any            `json:"-"`
}

// Snapshot configures the snapshots that let a step be reverted. In the
// file it is true, false, or an object of bounds (snapshots on).
type Snapshot struct {
	Disabled bool
	Limits   SnapshotLimits
}

// SnapshotLimits bound the snapshot store; zero fields take the defaults.
type SnapshotLimits struct {
	MaxSize        int64 `json:"max_size,omitempty" jsonschema:"the most bytes the store may take (default 1 GiB)"`
	MaxCheckpoints int   `json:"max_checkpoints,omitempty" jsonschema:"the most step snapshots kept per session (default 100)"`
	RetentionDays  int   `json:"retention_days,omitempty" jsonschema:"days snapshots are kept (default 30)"`
}

// Interleaved says a model interleaves reasoning with output; Field names
// the provider option that carries the reasoning text back, when there is one.
// In the file it is true or {"field": name}.
type Interleaved struct {
	Enabled bool
	Field   string
}

// Cost is the price in dollars per million tokens.
type Cost struct {
	Input           float64 `json:"input"`
	Output          float64 `json:"output"`
	CacheRead       float64 `json:"cache_read,omitempty"`
	CacheWrite      float64 `json:"cache_write,omitempty"`
	ContextOver200K *Cost   `json:"context_over_200k,omitempty"`
}

// Limit is a model's token limits.
type Limit struct {
	Context int `json:"context"`
	Input   int `json:"input,omitempty"`
	Output  int `json:"output"`
}

// Modalities lists the kinds of input and output a model handles: text,
// audio, image, video, pdf.
type Modalities struct {
	Input  []string `json:"input,omitempty"`
	Output []string `json:"output,omitempty"`
}

// ModelProvider overrides the package and API a single model uses.
type ModelProvider struct {
	NPM string `json:"npm,omitempty"`
	API string `json:"api,omitempty"`
}

// MCP configures one MCP server. Type is "local", "remote", or empty for an
// entry that only sets Enabled on a server defined elsewhere.
type MCP struct {
	Type        string            `json:"type,omitempty"`
	Command     []string          `json:"command,omitempty"`
	Cwd         string            `json:"cwd,omitempty"`
	Environment map[string]string `json:"environment,omitempty"`
	URL         string            `json:"url,omitempty"`
	Headers     map[string]string `json:"headers,omitempty"`
	OAuth       *MCPOAuth         `json:"oauth,omitempty"`
	Enabled     *bool             `json:"enabled,omitempty"`
	Timeout     *int              `json:"timeout,omitempty"` // milliseconds
}

// MCPOAuth configures OAuth for a remote MCP server. Disabled is set when
// the file says "oauth": false.
type MCPOAuth struct {
	ClientID     string `json:"clientId,omitempty"`
	ClientSecret string `json:"clientSecret,omitempty"`
	Scope        string `json:"scope,omitempty"`
	CallbackPort *int   `json:"callbackPort,omitempty"`
	RedirectURI  string `json:"redirectUri,omitempty"`
	Disabled     bool   `json:"-"`
}

// Attachment configures how attachments are prepared.
type Attachment struct {
	Image ImageAttachment `json:"image,omitzero"`
}

// ImageAttachment limits images sent to models.
type ImageAttachment struct {
	AutoResize     *bool `json:"auto_resize,omitempty"`
	MaxWidth       *int  `json:"max_width,omitempty"`        // default 2000
	MaxHeight      *int  `json:"max_height,omitempty"`       // default 2000
	MaxBase64Bytes *int  `json:"max_base64_bytes,omitempty"` // default 5242880
}

// Enterprise configures an enterprise deployment.
type Enterprise struct {
	URL string `json:"url,omitempty"`
}

// ToolOutput limits the tool output kept in context; zero means the default.
type ToolOutput struct {
	MaxLines int `json:"max_lines,omitempty"`
	MaxBytes int `json:"max_bytes,omitempty"`
}

// Sandbox configures the OS confinement of the bash tool's commands.
type Sandbox struct {
	Mode      string   `json:"mode,omitempty" jsonschema:"off (the default), read-only or workspace-write"`
	Network   *bool    `json:"network,omitempty" jsonschema:"let confined commands open network sockets (default false)"`
	Writable  []string `json:"writable,omitempty" jsonschema:"extra paths confined commands may write"`
	AutoAllow *bool    `json:"auto_allow,omitempty" jsonschema:"run confined commands the permission rules would ask about without asking; deny rules still apply"`
	Fallback  string   `json:"fallback,omitempty" jsonschema:"when the machine cannot confine commands: ask (the default: every command needs approval) or deny"`
}

// ACP configures codeloop acp, the agent editors start over the Agent
// Client Protocol.
type ACP struct {
	Terminal *bool `json:"terminal,omitempty" jsonschema:"run the bash tool's commands in the editor's terminals when the editor offers them (default false); ignored while a sandbox mode is on"`
}

// TUI configures the terminal interface. OpenCode kept settings of its own
// interface under the same key; they are accepted and ignored, so its
// files keep loading.
type TUI struct {
	Theme            Theme           `json:"theme,omitempty" jsonschema:"the colours: auto (from the terminal's background, the default), dark, light, plain (no colour), a built-in theme's name or a theme file's (see docs/tui.md); NO_COLOR always wins"`
	Mouse            *bool           `json:"mouse,omitempty" jsonschema:"capture the mouse (default true): the wheel scrolls the transcript, a click selects a message; false leaves the mouse to the terminal"`
	ScrollbackOnExit *bool           `json:"scrollback_on_exit,omitempty" jsonschema:"on quitting, write the session's transcript to the terminal's normal screen, where its scrollback keeps it (default false)"`
	ScrollSpeed      json.RawMessage `json:"scroll_speed,omitempty" jsonschema:"OpenCode's; accepted and ignored"`
	ScrollAccel      json.RawMessage `json:"scroll_acceleration,omitempty" jsonschema:"OpenCode's; accepted and ignored"`
	DiffStyle        json.RawMessage `json:"diff_style,omitempty" jsonschema:"OpenCode's; accepted and ignored"`

	// Keybinds are OpenCode's keybinds, honoured by the interface.
	Keybinds map[string]string `json:"keybinds,omitempty" jsonschema:"keys of the interface's actions, as OpenCode's keybinds: an action's name to its comma-separated keys (<leader>n, ctrl+p, none); leader sets the leader key (see docs/tui.md)"`
}

// Theme names the interface's colours: auto (or empty) for the
// terminal's background, dark, light, plain, one of the built-in themes
// or the name of a theme file (see docs/tui.md).
type Theme string

// ThemeNames are the themes every build has besides its named themes and
// theme files.
var ThemeNames = []string{"auto", "dark", "light", "plain"}

// Interface returns the interface's settings: the tui key with the
// top-level keybinds and theme of OpenCode's older files under it, those
// of tui winning.
func (c *Config) Interface() TUI {
	t := c.TUI
	if t.Theme == "" {
		t.Theme = c.Theme
	}
	if len(c.Keybinds) > 0 {
		binds := make(map[string]string, len(c.Keybinds)+len(t.Keybinds))
		for k, v := range c.Keybinds {
			binds[k] = v
		}
		for k, v := range t.Keybinds {
			binds[k] = v
		}
		t.Keybinds = binds
	}
	return t
}

// MouseOn reports whether the interface captures the mouse (the default).
func (t TUI) MouseOn() bool { return t.Mouse == nil || *t.Mouse }

// ScrollbackOnExitOn reports whether the transcript is written to the
// terminal's normal screen on quitting (off by default).
func (t TUI) ScrollbackOnExitOn() bool { return t.ScrollbackOnExit != nil && *t.ScrollbackOnExit }

// Search configures the web search service behind the websearch and
// codesearch tools. Setting any field turns the tools on; they are offered
// when a key is found too.
type Search struct {
	Provider string `json:"provider,omitempty" jsonschema:"the search service: exa (Exa's HTTP API, the only one and the default)"`
	APIKey   string `json:"apiKey,omitempty" jsonschema:"the service's API key; EXA_API_KEY from the environment when unset"`
	BaseURL  string `json:"baseURL,omitempty" jsonschema:"the service's API address (default https://api.exa.ai)"`
}

// Compaction configures context compaction.
type Compaction struct {
	Auto                 *bool `json:"auto,omitempty"`
	Prune                *bool `json:"prune,omitempty"`
	TailTurns            *int  `json:"tail_turns,omitempty"`
	PreserveRecentTokens *int  `json:"preserve_recent_tokens,omitempty"`
	Reserved             *int  `json:"reserved,omitempty"`
}

// Experimental holds experimental settings. Keys the type does not know are
// kept in Extra rather than rejected, since they come and go.
type Experimental struct {
	DisablePasteSummary *bool    `json:"disable_paste_summary,omitempty"`
	BatchTool           *bool    `json:"batch_tool,omitempty"` // accepted, has no effect
	OpenTelemetry       *bool    `json:"openTelemetry,omitempty"`
	PrimaryTools        []string `json:"primary_tools,omitempty"`
	ContinueLoopOnDeny  *bool    `json:"continue_loop_on_deny,omitempty"`
	MCPTimeout          *int     `json:"mcp_timeout,omitempty"` // milliseconds
	// MCPStartupWait is how long, in milliseconds, a session's first step
	// waits for MCP servers still connecting (3,000 when unset).
	MCPStartupWait *int `json:"mcp_startup_wait,omitempty"`
	// MaxRetryWait is the longest, in milliseconds, a retry waits when a
	// provider asks to be retried later (300,000 when unset); a longer
	// request ends the turn with an error instead.
	MaxRetryWait *int            `json:"max_retry_wait,omitempty"`
	Policies     json.RawMessage `json:"policies,omitempty"`
	Extra        map[string]any  `json:"-"`
}

// Permission is an ordered list of permission rules in the order the file
// wrote them. In the file it is an action for everything ("allow"), or an
// object mapping a permission name to an action or to an object mapping
// patterns to actions. Patterns are kept as written (no ~ expansion).
type Permission []PermissionRule

// PermissionRule is one rule: Action ("allow", "ask" or "deny") for requests
// whose permission name matches Permission and whose value matches Pattern.
type PermissionRule struct {
	Permission string `json:"permission"`
	Pattern    string `json:"pattern"`
	Action     string `json:"action"`
	// Floor marks a rule from a project the user has not trusted: it can
	// make the user's rules stricter, never looser.
	Floor bool `json:"-"`
}

// Loaded is the result of Load: the merged config and where it came from.
type Loaded struct {
	// Config is the merged config in force: Guarded until Use(true).
	Config *Config
	// Trusted is the merged config with the project's own files applied
	// in full; Guarded the same with what they would run or loosen held
	// back (see package trust), which is what applies until the user
	// trusts the project.
	Trusted, Guarded *Config
	// HeldBack lists what the project's own config files would make
	// codeloop run or loosen, held back in Guarded.
	HeldBack []trust.Item
	// ProjectFiles are the config files read from the project, and
	// ProjectDirs its config directories (.opencode, .codeloop).
	ProjectFiles, ProjectDirs []string
	// Sources maps each top-level key to the file that set it last.
	Sources map[string]string
	// Dirs are the config directories found, in merge order: the global
	// directories, each .opencode and .codeloop directory, and the
	// CODELOOP_CONFIG_DIR / OPENCODE_CONFIG_DIR directories. Agents,
	// commands and skills are discovered in their agent(s)/, command(s)/
	// and skill(s)/ sub-directories.
	Dirs []string
	// Worktree is the nearest ancestor of the working directory holding
	// .git, or the working directory itself.
	Worktree string
	// Files are the config files read, in merge order.
	Files []string
}

// Use puts the trusted config in force when trusted, else the guarded one.
func (l *Loaded) Use(trusted bool) {
	l.Config = l.Guarded
	if trusted {
		l.Config = l.Trusted
	}
}
