package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/hook"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/session"
	"github.com/codeloop/codeloop/internal/tool"
	"github.com/codeloop/codeloop/internal/tool/custom"
	"github.com/codeloop/codeloop/internal/trust"
)

// HookNotice is the bus event of a hook's notice for the user (a failure,
// a timeout, a systemMessage); its properties are a hook.Notice.
const HookNotice = hook.NoticeEvent

// Extensions are the hooks and custom tools that run.
type Extensions struct {
	// Hooks and Tools are what runs.
	Hooks *hook.Set
	Tools []*custom.Tool
	// Problems are hooks and tools left out because they are broken.
	Problems []string

	runner *hook.Runner
}

// TrustProject trusts the project as its files are now: its own commands
// and settings apply from the next start on.
func (a *App) TrustProject() error { return a.Trust.Grant(time.Now()) }

// RevokeTrust forgets the project's trust.
func (a *App) RevokeTrust() error { return a.Trust.Revoke() }

// extSources are the hooks and custom tool files found for a project, the
// user's and the project's apart.
type extSources struct {
	hooks                   []hook.Source
	userTools, projectTools []string
	// userJS and projectJS are OpenCode's JavaScript and TypeScript tool
	// files.
	userJS, projectJS []string
	problems          []string
}

// gatherExtensions finds the hooks (Claude Code's settings files and the
// config's hooks key) and the custom tools (~/.config/codeloop/tools,
// .codeloop/tools from the worktree root down, the config's custom_tools)
// and OpenCode's tool files (tool/ and tools/ of ~/.config/opencode,
// ~/.opencode and .opencode from the worktree root down).
// cfg is the trusted view of the config, which names the project's hooks
// and tools too.
func gatherExtensions(opts Options, loaded *config.Loaded, dir, worktree string, noClaude bool) extSources {
	var x extSources
	user := userDirs(opts)
	isProject := func(path string) bool { return projectPath(path, worktree, user) }
	if !noClaude {
		claudeDir := opts.Getenv("CLAUDE_CONFIG_DIR")
		if claudeDir == "" && opts.Dirs.Home != "" {
			claudeDir = filepath.Join(opts.Dirs.Home, ".claude")
		}
		srcs, errs := hook.ClaudeSources(hook.ClaudeOptions{UserDir: claudeDir, Dir: dir, Worktree: worktree})
		x.hooks = append(x.hooks, srcs...)
		for _, err := range errs {
			x.problems = append(x.problems, err.Error())
		}
	}
	cfg := loaded.Trusted
	x.hooks = append(x.hooks, configSources(cfg.Hooks, isProject)...)
	var userTools, projectTools []string
	if opts.Dirs.Config != "" {
		userTools = append(userTools, filepath.Join(opts.Dirs.Config, "tools"))
	}
	for _, d := range ancestorsDown(dir, worktree) {
		projectTools = append(projectTools, filepath.Join(d, ".codeloop", "tools"))
	}
	fromProject := isProject(loaded.Sources["custom_tools"])
	for _, p := range cfg.CustomTools {
		if fromProject || isProject(p) {
			projectTools = append(projectTools, p)
		} else {
			userTools = append(userTools, p)
		}
	}
	x.userTools, x.projectTools = custom.Find(userTools), custom.Find(projectTools)
	x.projectTools = slices.DeleteFunc(x.projectTools, func(p string) bool { return slices.Contains(x.userTools, p) })

	var userJS, projectJS []string
	for _, d := range []string{opts.Dirs.OpenCodeConfig(opts.Getenv), filepath.Join(opts.Dirs.Home, ".opencode")} {
		if d != "" && opts.Dirs.Home != "" {
			userJS = append(userJS, filepath.Join(d, "tool"), filepath.Join(d, "tools"))
		}
	}
	for _, d := range ancestorsDown(dir, worktree) {
		projectJS = append(projectJS, filepath.Join(d, ".opencode", "tool"), filepath.Join(d, ".opencode", "tools"))
	}
	x.userJS, x.projectJS = custom.FindJS(userJS), custom.FindJS(projectJS)
	x.projectJS = slices.DeleteFunc(x.projectJS, func(p string) bool { return slices.Contains(x.userJS, p) })
	return x
}

// items lists the project's hooks and custom tools as trust items.
func (x extSources) items(worktree string) []trust.Item {
	var out []trust.Item
	files := map[string][]byte{}
	for _, h := range hook.Build(x.hooks, false).Skipped() {
		cmd := h.Command
		if len(h.Args) > 0 {
			cmd += " " + strings.Join(h.Args, " ")
		}
		name := h.Event
		if h.Matcher != "" {
			name += " [" + h.Matcher + "]"
		}
		data, ok := files[h.Origin]
		if !ok {
			data, _ = os.ReadFile(h.Origin)
			files[h.Origin] = data
		}
		out = append(out, trust.Item{Kind: trust.KindHook, Name: name, Detail: cmd, File: h.Origin,
			Line: lineOfString(data, h.Command)})
	}
	for _, t := range slices.Concat(x.projectTools, x.projectJS) {
		out = append(out, trust.Item{Kind: trust.KindTool, Name: filepath.Base(t), Detail: t, File: t})
	}
	return out
}

// extOptions are what openExtensions reads.
type extOptions struct {
	opts      Options
	loaded    *config.Loaded
	dir       string
	sources   extSources
	trusted   bool
	truncator *tool.Truncator
	bus       *bus.Bus
}

// openExtensions builds the hooks and loads the custom tools that run: the
// user's always, the project's only when the user trusts it.
func openExtensions(ctx context.Context, o extOptions) *Extensions {
	x := &Extensions{Problems: slices.Clone(o.sources.problems)}
	x.Hooks = hook.Build(o.sources.hooks, o.trusted)
	x.Problems = append(x.Problems, x.Hooks.Warnings()...)
	files := o.sources.userTools
	if o.trusted {
		files = append(slices.Clip(files), o.sources.projectTools...)
	}
	if len(files) > 0 {
		tools, errs := custom.Load(ctx, files, custom.Options{Truncator: o.truncator, Log: o.opts.Log})
		x.Tools = tools
		for _, err := range errs {
			x.Problems = append(x.Problems, err.Error())
		}
	}
	js := o.sources.userJS
	if o.trusted {
		js = append(slices.Clip(js), o.sources.projectJS...)
	}
	x.Tools, x.Problems = loadJSTools(ctx, o, js, x.Tools, x.Problems)
	for _, p := range x.Problems {
		o.opts.Log.Warn("hooks and custom tools", "problem", p)
	}
	var servers []string
	for name := range o.loaded.Config.MCP {
		servers = append(servers, name)
	}
	x.runner = hook.NewRunner(x.Hooks, hook.Options{ProjectDir: o.dir, Shell: "", Names: hook.Names{MCPServers: servers},
		Log: o.opts.Log, Notify: func(n hook.Notice) {
			o.bus.Publish(context.Background(), bus.Event{Type: HookNotice, SessionID: n.SessionID, Properties: n})
		}})
	return x
}

// loadJSTools loads OpenCode's tool files under the first JavaScript
// runtime on PATH and adds them to tools, leaving out names taken. With no
// runtime, one problem names the files skipped.
func loadJSTools(ctx context.Context, o extOptions, files []string, tools []*custom.Tool, problems []string) ([]*custom.Tool, []string) {
	if len(files) == 0 {
		return tools, problems
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = filepath.Base(f)
	}
	rt, ok := custom.FindRuntime(ctx, nil)
	if !ok {
		return tools, append(problems, fmt.Sprintf("OpenCode's custom tools %s are skipped: no JavaScript runtime "+
			"(bun, deno or node) is on PATH", strings.Join(names, ", ")))
	}
	dir := o.opts.Dirs.Cache
	if dir == "" {
		dir = o.opts.Dirs.Data
	}
	bridge, err := custom.WriteBridge(dir)
	if err != nil {
		return tools, append(problems, fmt.Sprintf("OpenCode's custom tools %s are skipped: %v", strings.Join(names, ", "), err))
	}
	loaded, errs := custom.LoadJS(ctx, files, rt, bridge, custom.Options{Truncator: o.truncator, Log: o.opts.Log})
	for _, err := range errs {
		problems = append(problems, err.Error())
	}
	taken := map[string]string{}
	for _, t := range tools {
		taken[t.ID()] = t.File()
	}
	for _, t := range loaded {
		if prev, dup := taken[t.ID()]; dup {
			problems = append(problems, fmt.Sprintf("custom tool %s is named %q like %s; it is left out (rename one)", t.File(), t.ID(), prev))
			continue
		}
		tools = append(tools, t)
	}
	return tools, problems
}

// configSources turns the config's hook groups into sources, one per file.
func configSources(h config.Hooks, isProject func(string) bool) []hook.Source {
	byOrigin := map[string]hook.Spec{}
	var order []string
	events := make([]string, 0, len(h))
	for e := range h {
		events = append(events, e)
	}
	slices.Sort(events)
	for _, event := range events {
		for _, g := range h[event] {
			spec, ok := byOrigin[g.Source]
			if !ok {
				spec = hook.Spec{}
				byOrigin[g.Source] = spec
				order = append(order, g.Source)
			}
			gs := hook.GroupSpec{Matcher: g.Matcher}
			for _, hd := range g.Hooks {
				gs.Hooks = append(gs.Hooks, hook.HandlerSpec{Type: hd.Type, Command: hd.Command, Args: hd.Args, Timeout: hd.Timeout})
			}
			spec[event] = append(spec[event], gs)
		}
	}
	out := make([]hook.Source, 0, len(order))
	for _, o := range order {
		out = append(out, hook.Source{Origin: o, Project: isProject(o), Hooks: byOrigin[o]})
	}
	return out
}

// userDirs are the user's own configuration directories: files there are
// the user's even when the project lies around them.
func userDirs(o Options) []string {
	var out []string
	if o.Dirs.Config != "" {
		out = append(out, o.Dirs.Config)
	}
	if h := o.Dirs.Home; h != "" {
		out = append(out, filepath.Join(h, ".claude"), filepath.Join(h, ".config"), filepath.Join(h, ".codeloop"),
			filepath.Join(h, ".opencode"))
	}
	if d := o.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		out = append(out, d)
	}
	return out
}

// projectPath reports whether path is a file of the project: inside the
// worktree and not inside one of the user's directories. Names that are
// not paths (an environment variable's) are the user's.
func projectPath(path, worktree string, user []string) bool {
	if !filepath.IsAbs(path) || worktree == "" {
		return false
	}
	for _, u := range user {
		if within(path, u) {
			return false
		}
	}
	return within(path, worktree)
}

func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// ancestorsDown lists the directories from worktree down to dir.
func ancestorsDown(dir, worktree string) []string {
	var out []string
	for d := dir; ; d = filepath.Dir(d) {
		out = append(out, d)
		if d == worktree || filepath.Dir(d) == d || !within(d, worktree) {
			break
		}
	}
	slices.Reverse(out)
	return out
}

// customAsk makes custom tools ask by default: a call that only a rule
// for every permission ("*") would allow is asked about; a rule naming the
// tool decides as usual.
type customAsk struct {
	inner session.Permissions
	names map[string]bool
}

func withCustomAsk(p session.Permissions, tools []*custom.Tool) session.Permissions {
	if len(tools) == 0 {
		return p
	}
	names := map[string]bool{}
	for _, t := range tools {
		names[t.ID()] = true
	}
	return customAsk{inner: p, names: names}
}

func (c customAsk) Ask(ctx context.Context, rules permission.Ruleset, req permission.Request) error {
	if c.names[req.Permission] {
		for _, p := range req.Patterns {
			if r, ok := permission.Evaluate(req.Permission, p, rules); ok && r.Action == permission.Allow && r.Permission != req.Permission {
				rules = append(slices.Clip(rules), permission.Rule{Permission: req.Permission, Pattern: "*", Action: permission.Ask})
				break
			}
		}
	}
	return c.inner.Ask(ctx, rules, req)
}

// lineOfString is the 1-based line of the first JSON string in data whose
// value is s; 0 when there is none.
func lineOfString(data []byte, s string) int {
	quoted, err := json.Marshal(s)
	if err != nil || len(data) == 0 {
		return 0
	}
	i := bytes.Index(data, quoted)
	if i < 0 {
		return 0
	}
	return 1 + bytes.Count(data[:i], []byte("\n"))
}
