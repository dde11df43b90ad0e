// Package app wires codeloop's services together for one project
// directory: the config, the store, the bus, the model providers, the
// agents, the tools (built-in, task, skill, MCP), the permission service,
// the system prompt builder and the session engine. OpenData opens only the
// config, the store and the project id, for commands that read and write
// stored data.
//
// It imports the core packages; the command line, the server and the TUI
// import it.
package app

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/codeloop/codeloop/internal/agent"
	"github.com/codeloop/codeloop/internal/approval"
	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/lsp"
	"github.com/codeloop/codeloop/internal/mcp"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/paths"
	"github.com/codeloop/codeloop/internal/prompt"
	"github.com/codeloop/codeloop/internal/provider"
	"github.com/codeloop/codeloop/internal/session"
	"github.com/codeloop/codeloop/internal/shellscan"
	"github.com/codeloop/codeloop/internal/skill"
	"github.com/codeloop/codeloop/internal/snapshot"
	"github.com/codeloop/codeloop/internal/store"
	"github.com/codeloop/codeloop/internal/task"
	"github.com/codeloop/codeloop/internal/tool"
)

// Options say where and how the app runs.
type Options struct {
	Dir     string // the working directory
	Dirs    paths.Dirs
	Getenv  func(string) string
	Log     *slog.Logger
	Version string
	// AutoApprove answers permission asks "once" by itself; NonInteractive
	// rejects the asks nobody can answer.
	AutoApprove    bool
	NonInteractive bool
	// NoMCP skips connecting MCP servers.
	NoMCP bool
	// NoLSPWarm starts language servers on the first edit only, not when
	// a file is read: a one-shot run that only reads spares their start.
	NoLSPWarm bool
	// ReadOnly opens the store for reading only (OpenData).
	ReadOnly bool
	// Sandbox, when not empty, is the sandbox mode of the bash tool,
	// overriding the config's sandbox.mode.
	Sandbox string
	// MCPWait is how long a session's first step waits for MCP servers
	// still connecting (experimental.mcp_startup_wait, else
	// mcp.DefaultStartupWait).
	MCPWait time.Duration
	// MCP are servers added to the config's for this app only (those an
	// editor passes); one named as a server of the config replaces it.
	MCP map[string]config.MCP
	// TrustProject trusts the project as its files are now before
	// anything else (--trust-project).
	TrustProject bool
	// DistrustProject holds the project's own files back whatever the
	// trust store says: the checkout is someone else's (a fork's pull
	// request) though the directory was trusted before.
	DistrustProject bool
}

// App is one project's running services.
type App struct {
	Dir, Worktree string
	ProjectID     string
	Config        *config.Loaded
	Store         *store.Store
	Bus           *bus.Bus
	Agents        *agent.Registry
	Permissions   *approval.Service
	Sessions      *session.Sessions
	Engine        *session.Engine
	MCP           *mcp.Manager
	Models        *provider.Registry
	Dirs          paths.Dirs
	// Snapshots keeps what steps change so they can be reverted; nil when
	// snapshots are off.
	Snapshots *snapshot.Store
	// Questions holds the question tool's questions waiting for the user.
	Questions *tool.Questions
	// Extensions are the hooks and custom tools that run.
	Extensions *Extensions
	// Trust says whether the project's own commands and settings apply,
	// and lists them.
	Trust *Trust
	// LSP runs the project's language servers.
	LSP *lsp.Manager

	skills   *skill.Set
	secrets  *tool.SecretFiles // the secret files, for the file routes
	tools    *tools            // the tools the model is offered
	held     func(string) bool // whether a file is an untrusted project's
	noClaude bool              // Claude Code's files are not read
	mcpWait  time.Duration     // how long to wait for MCP servers still connecting
	closers  []func() error
}

// Open starts the services for opts.Dir.
func Open(ctx context.Context, opts Options) (a *App, err error) {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	d, err := OpenData(ctx, opts)
	if err != nil {
		return nil, err
	}
	dir, loaded, cfg := d.Dir, d.Config, d.Config.Config
	if len(opts.MCP) > 0 {
		servers := maps.Clone(cfg.MCP)
		if servers == nil {
			servers = map[string]config.MCP{}
		}
		maps.Copy(servers, opts.MCP)
		cfg.MCP = servers
	}
	a = &App{Dir: dir, Worktree: d.Worktree, ProjectID: d.ProjectID, Config: loaded, Store: d.Store,
		Bus: bus.New(0), Dirs: opts.Dirs, Trust: d.Trust}
	a.closers = append(a.closers, a.Store.Close)
	opened := a // the returns below set a to nil
	defer func() {
		if err != nil {
			_ = opened.Close()
		}
	}()
	if err := d.SaveProject(ctx); err != nil {
		return nil, err
	}
	git := d.VCS == "git"

	noClaude := envTrue(opts.Getenv, "DISABLE_CLAUDE_CODE")
	skills := skill.Discover(skill.Options{
		Home: opts.Dirs.Home, ConfigDirs: loaded.Dirs, Dir: dir, Worktree: a.Worktree, Paths: cfg.Skills.Paths,
		NoClaude:   noClaude || envTrue(opts.Getenv, "DISABLE_CLAUDE_CODE_SKILLS"),
		NoExternal: envTrue(opts.Getenv, "DISABLE_EXTERNAL_SKILLS"), Log: opts.Log,
	})
	a.skills, a.noClaude = skills, noClaude
	var skillDirs []string
	for _, sk := range skills.All() {
		skillDirs = append(skillDirs, sk.Dir)
	}
	held := a.Trust.heldPath(userDirs(opts))
	if a.Agents, err = agent.Load(ctx, agent.Options{
		Config: cfg, ConfigDirs: loaded.Dirs, Worktree: a.Worktree, Cwd: dir, Dirs: opts.Dirs,
		AllowedDirs: slices.Compact(skillDirs), NoClaudeCode: noClaude, Held: held,
	}); err != nil {
		return nil, err
	}
	a.held = held
	if held != nil {
		// Only an untrusted project's files hold anything back; a trusted
		// one's commands are read when they are first listed.
		a.Trust.add(a.Agents.HeldBack()...)
		a.Trust.add(a.commands(ctx, nil).HeldBack()...)
	}
	for _, w := range a.Agents.Warnings() {
		opts.Log.Warn("agent definition", "err", w)
	}

	a.Permissions = approval.NewService(a.Bus, storeApprovals{a.Store}, approval.Options{
		ProjectID: a.ProjectID, AutoApprove: opts.AutoApprove, NonInteractive: opts.NonInteractive,
	})

	secrets, err := SecretFiles(cfg.SecretFiles)
	if err != nil {
		opts.Log.Warn("config", "err", err)
	}
	a.secrets = secrets
	builder := prompt.NewBuilder(prompt.Options{
		Dir: dir, Worktree: a.Worktree, Git: git, Home: opts.Dirs.Home,
		GlobalFiles: prompt.DefaultGlobalFiles(opts.Dirs, opts.Getenv), Instructions: cfg.Instructions,
		NoClaude: noClaude || envTrue(opts.Getenv, "DISABLE_CLAUDE_CODE_PROMPT"), Log: opts.Log,
		Untrusted: !a.Trust.Verdict.Trusted(), Secrets: secrets,
	})
	truncator := &tool.Truncator{Dir: opts.Dirs.ToolOutput(), Limits: tool.Limits{MaxLines: cfg.ToolOutput.MaxLines, MaxBytes: cfg.ToolOutput.MaxBytes}}
	marks := tool.NewStageMarks(filepath.Join(opts.Dirs.Data, "staging"), a.Worktree)
	a.cleanOutputs(truncator.Dir, marks)
	if !opts.NoMCP && len(cfg.MCP) > 0 {
		mopts := mcp.Options{Dir: dir, Bus: a.Bus, Logger: opts.Log,
			Auth: mcp.NewAuthStore(opts.Dirs.MCPAuth()), ClientVersion: opts.Version, Truncate: truncator}
		if ms := cfg.Experimental.MCPTimeout; ms != nil && *ms > 0 {
			mopts.CallTimeout = time.Duration(*ms) * time.Millisecond
		}
		a.MCP = mcp.Start(cfg.MCP, mopts)
		a.closers = append(a.closers, a.MCP.Close)
	}
	mcpWait := opts.MCPWait
	if ms := cfg.Experimental.MCPStartupWait; mcpWait <= 0 && ms != nil && *ms > 0 {
		mcpWait = time.Duration(*ms) * time.Millisecond
	}
	a.mcpWait = mcpWait

	confine, err := confinement(cfg.Sandbox, opts.Sandbox, a.Worktree)
	if err != nil {
		return nil, err
	}
	search, err := searchService(cfg.Search, opts.Getenv, opts.Log)
	if err != nil {
		return nil, err
	}
	snaps, err := openSnapshots(cfg.Snapshot, opts.Dirs, opts)
	if err != nil {
		return nil, err
	}
	if snaps != nil {
		a.Snapshots = snaps
		a.closers = append(a.closers, snaps.Close)
	}
	servers, formatters, heldTools, err := openCodeTools(cfg, a.Worktree, opts.Version, a.Trust.Verdict.Trusted(), opts.Log)
	if err != nil {
		return nil, err
	}
	a.Trust.add(heldTools...)
	a.LSP = servers
	a.closers = append(a.closers, servers.Close)
	run := &runner{mentions: func(text string) []message.Part { return a.Mentions(text, a.Worktree, false) }}
	nested := prompt.NewNested(builder)
	a.Questions = tool.NewQuestions(a.Bus)
	builtin := tool.Builtins(tool.Env{
		Truncator: truncator, Bus: a.Bus, Todos: a.Store, Questions: a.Questions,
		HTTPClient:   &http.Client{Transport: llm.ProxyTransport(opts.Getenv)},
		Instructions: instructionsHook(opts, servers, nested.Instructions),
		AnalyzeBash:  func(cmd, dir string) tool.BashAnalysis { return analyzeShell(cmd, cfg.Shell, dir) },
		Shell:        cfg.Shell,
		Sandbox:      confine,
		Secrets:      secrets,
		Log:          opts.Log,
		Search:       search,
		BeforeChange: beforeChange(marks, keepPreImages(snaps)),
		AfterChange:  afterChange(formatters, servers, a.Worktree),
	})
	depth := 0
	if cfg.SubagentDepth != nil {
		depth = *cfg.SubagentDepth
	}
	builtin = append(builtin,
		task.New(task.Options{Agents: a.Agents, Runner: run, Depth: depth, PrimaryTools: cfg.Experimental.PrimaryTools}),
		skill.NewTool(skills),
	)
	a.Extensions = openExtensions(ctx, extOptions{opts: opts, loaded: loaded, dir: dir, sources: d.ext,
		trusted: a.Trust.Verdict.Trusted(), truncator: truncator, bus: a.Bus})
	for _, t := range a.Extensions.Tools {
		builtin = append(builtin, t)
	}

	a.Models = provider.New(provider.Options{Config: cfg, Dirs: opts.Dirs, Getenv: opts.Getenv,
		UserAgent: "codeloop/" + opts.Version, Log: opts.Log})
	a.Models.DetectLocal(ctx)
	a.refreshCatalog()
	md := models{a.Models}
	a.Sessions = newSessions(a.Store, a.Bus, opts)
	a.pruneSessions(cfg.Retention, opts.Log)
	a.tools = &tools{builtin: builtin, mcp: a.MCP, mcpWait: mcpWait, lsp: servers, lspTool: lsp.NewTool(servers)}
	a.Engine, err = session.New(session.Config{
		Sessions: a.Sessions, Bus: a.Bus, Models: md, Agents: agents{a.Agents},
		Tools:       a.tools,
		Permissions: withCustomAsk(a.Permissions, a.Extensions.Tools),
		Hooks:       a.Extensions.runner,
		System:      &system{b: builder, skills: skills, mcp: a.MCP},
		Reminders:   reminders{},
		Texts: session.Texts{
			MaxSteps: prompt.MaxSteps(), Title: prompt.TitleSystem(), Compaction: prompt.CompactionSystem(),
			CompactionPrompt: prompt.CompactionPrompt, Continue: prompt.CompactionContinue(),
			Mention: agent.MentionInstruction,
		},
		Read:      findTool(builtin, "read"),
		Secrets:   secrets,
		Snapshots: sessionSnapshots(snaps),
		Resources: mcpResources{mcp: a.MCP, wait: mcpWait},
		ProjectID: a.ProjectID, Directory: dir, Worktree: a.Worktree,
		Compaction: session.Compaction{
			Auto: compactionAuto(cfg, opts.Getenv), Prune: cfg.Compaction.Prune, TailTurns: cfg.Compaction.TailTurns,
			PreserveRecentTokens: cfg.Compaction.PreserveRecentTokens, Reserved: cfg.Compaction.Reserved,
		},
		ToolResultMedia:  md.mediaInResults,
		ContinueOnReject: cfg.Experimental.ContinueLoopOnDeny != nil && *cfg.Experimental.ContinueLoopOnDeny,
		UserInitiated:    task.UserInitiated,
		StallTimeout:     func(providerID string) time.Duration { return chunkTimeout(cfg, providerID) },
		MaxRetryWait:     millis(cfg.Experimental.MaxRetryWait),
		Log:              opts.Log,
	})
	if err != nil {
		return nil, err
	}
	run.mu.Lock()
	run.eng = a.Engine
	run.mu.Unlock()
	a.closers = append(a.closers, func() error { a.Engine.Close(); return nil })
	return a, nil
}

// Close stops the engine (aborting running loops after they saved their
// state), the MCP servers and the store.
func (a *App) Close() error {
	var errs []error
	for i := len(a.closers) - 1; i >= 0; i-- {
		errs = append(errs, a.closers[i]())
	}
	a.closers = nil
	return errors.Join(errs...)
}

// cleanOutputs removes saved tool outputs past their retention, at once
// in the background and then hourly, after removing the staged files of
// killed writes from the project when marks say there may be some; Close
// stops it and waits (for the project's sweep to end, too), then removes
// this process's mark.
func (a *App) cleanOutputs(dir string, marks *tool.StageMarks) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		marks.Sweep(context.WithoutCancel(ctx))
		tool.Cleanup(ctx, dir, tool.OutputRetention)
	}()
	a.closers = append(a.closers, func() error {
		cancel()
		<-done
		marks.Close()
		return nil
	})
}

// beforeChange marks the process as one that may leave staged files in
// the project before a tool's first change to files, then calls next.
func beforeChange(marks *tool.StageMarks, next func(ctx context.Context, call *tool.Call, paths []string) error) func(ctx context.Context, call *tool.Call, paths []string) error {
	return func(ctx context.Context, call *tool.Call, paths []string) error {
		if err := marks.Mark(); err != nil {
			return fmt.Errorf("marking the process before a write: %w", err)
		}
		if next == nil {
			return nil
		}
		return next(ctx, call, paths)
	}
}

// refreshCatalog fetches a stale cached model catalog in the background
// (the registry skips it when CODELOOP_DISABLE_MODELS_FETCH is set or the
// cache is fresh); Close cancels the fetch and waits for it to end. The new
// copy serves the next start.
func (a *App) refreshCatalog() {
	ctx, cancel := context.WithCancel(context.Background())
	done := a.Models.RefreshCatalog(ctx)
	a.closers = append(a.closers, func() error {
		cancel()
		<-done
		return nil
	})
}

// analyzeShell is the permission analysis of a bash tool command run by
// the configured shell (bash when none is): the commands it runs and the
// file paths known from its text. A path only known at run time is checked
// by the directory its literal part names ("/etc/$x" by "/etc/"); one that
// names none ("$f") is left out. Programs run through paths are resolved
// from dir, the directory the command runs in.
func analyzeShell(cmd, shell, dir string) tool.BashAnalysis {
	home, _ := os.UserHomeDir()
	an := shellscan.Analyze(cmd, shellscan.AnalyzeOptions{Shell: tool.AnalysisShell(shell), Dir: dir, Path: os.Getenv("PATH"), Home: home})
	return tool.BashAnalysisOf(an, an.StaticPaths())
}

func compactionAuto(cfg *config.Config, getenv func(string) string) *bool {
	if envTrue(getenv, "DISABLE_AUTOCOMPACT") {
		off := false
		return &off
	}
	return cfg.Compaction.Auto
}

// projectID identifies a project across clones: the first root commit of
// a git repository, a hash of the worktree path for a repository without
// commits, "global" outside git. A repository's id is kept in
// .git/codeloop-project once known (a root commit never changes), which
// spares every later start a git process.
func projectID(ctx context.Context, worktree string, git bool) string {
	if !git {
		return "global"
	}
	cache := filepath.Join(worktree, ".git", "codeloop-project")
	if b, err := os.ReadFile(cache); err == nil {
		if id := strings.TrimSpace(string(b)); isCommitID(id) {
			return id
		}
	}
	cmd := exec.CommandContext(ctx, "git", "rev-list", "--max-parents=0", "--all")
	cmd.Dir = worktree
	if out, err := cmd.Output(); err == nil {
		roots := strings.Fields(string(out))
		slices.Sort(roots)
		if len(roots) > 0 && isCommitID(roots[0]) {
			if fi, err := os.Stat(filepath.Dir(cache)); err == nil && fi.IsDir() {
				// Best effort: a read-only .git only costs the next start
				// the git process again, and a torn write fails
				// isCommitID.
				_ = os.WriteFile(cache, []byte(roots[0]+"\n"), 0o644)
			}
			return roots[0]
		}
	}
	sum := sha1.Sum([]byte(worktree))
	return hex.EncodeToString(sum[:])
}

// isCommitID reports whether s looks like a full SHA-1 or SHA-256 object
// name.
func isCommitID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Mentions returns the parts for the @ mentions of a prompt's text: a file
// part (file: URL) for each file or directory, relative to dir, a resource
// part for each @<server>:<uri> of an enabled MCP server, and, when
// withAgents is set, an agent part for each sub-agent mentioned where no
// such file exists. The session engine reads the files and resources when
// the message is stored.
func (a *App) Mentions(text, dir string, withAgents bool) []message.Part {
	r := a.resolver(dir)
	if withAgents {
		r.Agents = a.Agents
	}
	files, mentioned, resources := r.Resolve(text)
	var agents []agent.AgentRef
	for _, m := range mentioned {
		if ag, ok := a.Agents.Get(m.Name); ok && ag.Subagent() && !ag.Hidden {
			agents = append(agents, m)
		}
	}
	return agent.RefParts(files, agents, resources)
}

// chunkTimeout is the provider's options.chunkTimeout as a stall timeout
// for the session: zero (the default) when unset, negative when disabled.
func chunkTimeout(cfg *config.Config, providerID string) time.Duration {
	p, ok := cfg.Provider[providerID]
	if !ok || p.Options.ChunkTimeout == nil {
		return 0
	}
	if t := p.Options.ChunkTimeout; t.Disabled {
		return -1
	} else if t.Millis > 0 {
		return time.Duration(t.Millis) * time.Millisecond
	}
	return 0
}

// findTool returns the tool called id, or nil.
func findTool(tools []tool.Tool, id string) tool.Tool {
	for _, t := range tools {
		if t.ID() == id {
			return t
		}
	}
	return nil
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func firstEnv(getenv func(string) string, names ...string) string {
	for _, n := range names {
		if v := getenv(n); v != "" {
			return v
		}
	}
	return ""
}

// envTrue reports whether CODELOOP_<name> or OPENCODE_<name> is true.
func envTrue(getenv func(string) string, name string) bool {
	for _, prefix := range []string{"CODELOOP_", "OPENCODE_"} {
		switch strings.ToLower(getenv(prefix + name)) {
		case "1", "true", "yes", "on":
			return true
		}
	}
	return false
}

// String describes the app for logs.
func (a *App) String() string { return fmt.Sprintf("app %s (project %s)", a.Dir, a.ProjectID) }

// millis is a config value in milliseconds as a duration, 0 when unset.
func millis(ms *int) time.Duration {
	if ms == nil || *ms <= 0 {
		return 0
	}
	return time.Duration(*ms) * time.Millisecond
}
