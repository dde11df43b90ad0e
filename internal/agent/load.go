package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/paths"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/trust"
)

// Options say where Load finds agents and what they are built on.
type Options struct {
	// Config is the merged configuration; its agent, mode, permission,
	// tools and default_agent sections are used.
	Config *config.Config
	// ConfigDirs are the config directories (config.Loaded.Dirs), in merge
	// order; agent files are read from their agent/, agents/, mode/ and
	// modes/ sub-directories.
	ConfigDirs []string
	// Worktree is the project root and Cwd the working directory; Claude
	// Code's .claude/agents directories are read from Worktree down to Cwd.
	Worktree, Cwd string
	// Dirs are codeloop's directories: the tool-output directory every
	// agent may read, the data directory where plans may be kept, and home.
	Dirs paths.Dirs
	// AllowedDirs are further directories outside the project that every
	// agent may use without asking (skill directories).
	AllowedDirs []string
	// NoClaudeCode skips Claude Code's agent directories.
	NoClaudeCode bool
	// ResolveModel turns model aliases ("sonnet") into "provider/model".
	ResolveModel ModelResolver
	// Held reports whether an agent file belongs to a project the user has
	// not trusted; its permission rules then only tighten (they become
	// floor rules), and the tools it turns on are held back. Nil holds
	// nothing back.
	Held func(path string) bool
}

// Definition is one agent definition, from the config or a file. Loading
// applies the definitions in order, each changing only the fields it sets.
type Definition struct {
	Name   string
	Agent  config.Agent
	Source string // "config" or the file's path
	// Warning is a problem with the definition that did not stop it being
	// used.
	Warning error
	// Held lists what loading held back of the definition, its project
	// not being trusted.
	Held []trust.Item
}

// guardAgent makes the definition of an agent file from a project the user
// has not trusted unable to loosen anything: its rules become floor rules,
// and the tools it turns on are left out. It returns the items held back.
func guardAgent(name, file string, c config.Agent) (config.Agent, []trust.Item) {
	var held []trust.Item
	floor, allows := config.GuardPermission(c.Permission)
	c.Permission = floor
	for _, r := range allows {
		held = append(held, trust.Item{Kind: trust.KindAgent, Name: name, Detail: r.Permission + " " + r.Pattern + ": allow", File: file})
	}
	if len(c.Tools) > 0 {
		tools := map[string]bool{}
		for t, on := range c.Tools {
			if on {
				held = append(held, trust.Item{Kind: trust.KindAgent, Name: name, Detail: "tools." + t + ": true", File: file})
				continue
			}
			tools[t] = on
		}
		c.Tools = tools
	}
	return c, held
}

// ParseAgentFile reads an agent file in OpenCode's format: YAML frontmatter
// with the fields of a config agent entry, the body as the prompt. name is
// the name the file's location gives; a "name" field overrides it. Tool
// lists written the Claude Code way ("tools: Read, Grep") are accepted.
// Errors name the file.
func ParseAgentFile(p string, data []byte, name string, resolve ModelResolver) (Definition, error) {
	m, body, err := parseFront(p, data)
	if err != nil {
		return Definition{}, err
	}
	def := Definition{Name: name, Source: p}
	if n := strings.TrimSpace(scalar(field(m, "name"))); n != "" {
		def.Name = n
	}
	var claudeTools config.Permission
	if t := field(m, "tools"); t != nil && t.Kind != yaml.MappingNode {
		claudeTools = claudeToolPermission(list(t), list(field(m, "disallowedTools")))
		m = without(m, "tools", "disallowedTools")
	}
	m = without(m, "name")
	if m != nil {
		raw, err := nodeJSON(m)
		if err != nil {
			return Definition{}, &FileError{Path: p, Err: err}
		}
		if err := json.Unmarshal(raw, &def.Agent); err != nil {
			return Definition{}, &FileError{Path: p, Err: fmt.Errorf("invalid agent frontmatter: %w", err)}
		}
	}
	def.Agent.Permission = append(claudeTools, def.Agent.Permission...)
	if body != "" {
		def.Agent.Prompt = body
	}
	if def.Agent.Mode != "" && !Mode(def.Agent.Mode).Valid() {
		return Definition{}, &FileError{Path: p, Err: fmt.Errorf("mode %q is not one of primary, subagent, all", def.Agent.Mode)}
	}
	if def.Agent.Model != "" && !strings.Contains(def.Agent.Model, "/") {
		model, werr := claudeModel(def.Agent.Model, resolve)
		def.Agent.Model = model
		if werr != nil {
			def.Warning = &FileError{Path: p, Err: werr}
		}
	}
	return def, nil
}

// definitions collects every agent definition in the order they apply:
// Claude Code's user agents, Claude Code's project agents from the
// worktree root down, the agent files of each config directory, the
// deprecated "mode" section, then the "agent" section of the config, whose
// fields therefore win.
func definitions(ctx context.Context, o Options) ([]Definition, []error) {
	var defs []Definition
	var warns []error
	add := func(d Definition, err error) {
		if err != nil {
			warns = append(warns, err)
			return
		}
		if d.Warning != nil {
			warns = append(warns, d.Warning)
		}
		if d.Name != "" {
			defs = append(defs, d)
		}
	}
	if !o.NoClaudeCode {
		var dirs []string
		if o.Dirs.Home != "" {
			dirs = append(dirs, filepath.Join(o.Dirs.Home, ".claude"))
		}
		for _, d := range ancestors(o.Cwd, o.Worktree) {
			if d != o.Dirs.Home {
				dirs = append(dirs, filepath.Join(d, ".claude"))
			}
		}
		for _, d := range dirs {
			for _, f := range findMarkdown(d, []string{"agents"}, false) {
				if ctx.Err() != nil {
					return defs, warns
				}
				data, err := os.ReadFile(f.path)
				if err != nil {
					add(Definition{}, &FileError{Path: f.path, Err: err})
					continue
				}
				add(ParseClaudeAgent(f.path, data, o.ResolveModel))
			}
		}
	}
	for _, dir := range o.ConfigDirs {
		for _, sub := range []struct {
			names   []string
			flat    bool
			primary bool
		}{{[]string{"agent", "agents"}, false, false}, {[]string{"mode", "modes"}, true, true}} {
			for _, f := range findMarkdown(dir, sub.names, sub.flat) {
				if ctx.Err() != nil {
					return defs, warns
				}
				data, err := os.ReadFile(f.path)
				if err != nil {
					add(Definition{}, &FileError{Path: f.path, Err: err})
					continue
				}
				d, err := ParseAgentFile(f.path, data, f.name, o.ResolveModel)
				if sub.primary {
					d.Agent.Mode = string(ModePrimary)
				}
				add(d, err)
			}
		}
	}
	if c := o.Config; c != nil {
		for _, name := range slices.Sorted(maps.Keys(c.Mode)) {
			a := c.Mode[name]
			a.Mode = string(ModePrimary)
			defs = append(defs, Definition{Name: name, Agent: a, Source: "config"})
		}
		for _, name := range slices.Sorted(maps.Keys(c.Agent)) {
			defs = append(defs, Definition{Name: name, Agent: c.Agent[name], Source: "config"})
		}
	}
	return defs, warns
}

// draft is an agent being assembled: its base rules (defaults, built-in
// rules, the user's rules, built-in locks) and the rules its definitions
// add.
type draft struct {
	Agent
	base, own permission.Ruleset
}

// Load builds the registry: the built-in agents, changed or removed and
// joined by the definitions found in the config and agent files. Each
// agent's ruleset is the defaults, then (for built-ins) its own rules, then
// the user's permission section, then what its definitions add. It fails
// only when default_agent names an agent that cannot be the default;
// unreadable files become warnings.
func Load(ctx context.Context, o Options) (*Registry, error) {
	cfg := o.Config
	if cfg == nil {
		cfg = &config.Config{}
	}
	home := o.Dirs.Home
	external := append([]string{o.Dirs.ToolOutput()}, o.AllowedDirs...)
	defaults := defaultRules(o.Dirs, o.AllowedDirs...)
	user := rulesFromConfigAndTools(cfg.Permission, cfg.Tools, home)
	plansData := ""
	if o.Dirs.Data != "" {
		plansData = filepath.Join(o.Dirs.Data, "plans")
	}

	agents := map[string]*draft{}
	var order []string // definition order, for the implicit default
	for _, b := range builtins(o.Worktree, plansData, external) {
		d := &draft{Agent: b.agent, base: permission.Merge(defaults, b.rules, user, b.lock)}
		d.Native, d.Source, d.Options = true, "builtin", map[string]any{}
		agents[d.Name] = d
		order = append(order, d.Name)
	}

	defs, warns := definitions(ctx, o)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	disabled := map[string]bool{}
	for _, def := range defs {
		c := def.Agent
		if o.Held != nil && def.Source != "config" && o.Held(def.Source) {
			c, def.Held = guardAgent(def.Name, def.Source, c)
		}
		if c.Disable != nil && *c.Disable {
			delete(agents, def.Name)
			disabled[def.Name] = true
			continue
		}
		d, ok := agents[def.Name]
		if !ok {
			d = &draft{Agent: Agent{Name: def.Name, Mode: ModeAll, Options: map[string]any{}}, base: permission.Merge(defaults, user)}
			agents[def.Name] = d
			order = append(order, def.Name)
		}
		delete(disabled, def.Name)
		if err := apply(d, c, home); err != nil {
			warns = append(warns, fmt.Errorf("agent %q (%s): %w", def.Name, def.Source, err))
		}
		d.Source = def.Source
	}

	r := &Registry{agents: make(map[string]*Agent, len(agents)), warnings: warns}
	for _, def := range defs {
		r.held = append(r.held, def.Held...)
	}
	toolOutput := filepath.Join(o.Dirs.ToolOutput(), "*")
	for name, d := range agents {
		a := d.Agent
		a.Permission = permission.Merge(d.base, d.own)
		// Every agent may read the full output of truncated tool results
		// unless its rules deny that directory by name.
		if !slices.ContainsFunc(a.Permission, func(r permission.Rule) bool {
			return r.Permission == "external_directory" && r.Pattern == toolOutput && r.Action == permission.Deny
		}) {
			a.Permission = append(a.Permission, permission.Rule{Permission: "external_directory", Pattern: toolOutput, Action: permission.Allow})
		}
		r.agents[name] = &a
	}

	def, err := chooseDefault(r, cfg.DefaultAgent, order, disabled)
	if err != nil {
		return nil, err
	}
	r.def = def
	names := slices.Sorted(maps.Keys(r.agents))
	r.order = append([]string{def}, slices.DeleteFunc(names, func(n string) bool { return n == def })...)
	return r, nil
}

// apply changes d by the fields c sets.
func apply(d *draft, c config.Agent, home string) error {
	var errs []string
	if c.Model != "" {
		d.Model = c.Model
		if _, _, ok := SplitModel(c.Model); !ok {
			errs = append(errs, fmt.Sprintf("model %q is not of the form provider/model", c.Model))
		}
	}
	if c.Variant != "" {
		d.Variant = c.Variant
	}
	if c.Prompt != "" {
		d.Prompt = c.Prompt
	}
	if c.Description != "" {
		d.Description = c.Description
	}
	if c.Temperature != nil {
		d.Temperature = c.Temperature
	}
	if c.TopP != nil {
		d.TopP = c.TopP
	}
	if c.Mode != "" {
		if Mode(c.Mode).Valid() {
			d.Mode = Mode(c.Mode)
		} else {
			errs = append(errs, fmt.Sprintf("mode %q is not one of primary, subagent, all", c.Mode))
		}
	}
	if c.Color != "" {
		d.Color = c.Color
	}
	if c.Hidden != nil {
		d.Hidden = *c.Hidden
	}
	switch {
	case c.Steps != nil:
		d.Steps = c.Steps
	case c.MaxSteps != nil:
		d.Steps = c.MaxSteps
	}
	if len(c.Options) > 0 {
		d.Options = mergeOptions(d.Options, c.Options)
	}
	d.own = permission.Merge(d.own, rulesFromConfigAndTools(c.Permission, c.Tools, home))
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// mergeOptions deep-merges src into a copy of dst; maps merge, other values
// replace.
func mergeOptions(dst, src map[string]any) map[string]any {
	out := maps.Clone(dst)
	if out == nil {
		out = map[string]any{}
	}
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := out[k].(map[string]any); ok {
				out[k] = mergeOptions(dm, sm)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// chooseDefault checks the default_agent setting, or picks the first
// visible primary agent in definition order when it is unset.
func chooseDefault(r *Registry, name string, order []string, disabled map[string]bool) (string, error) {
	var choices []string
	for _, n := range slices.Sorted(maps.Keys(r.agents)) {
		if a := r.agents[n]; a.Primary() && !a.Hidden {
			choices = append(choices, n)
		}
	}
	if name != "" {
		a, ok := r.agents[name]
		switch {
		case !ok && disabled[name]:
			return "", &DefaultAgentError{Name: name, Reason: "is disabled", Choices: choices}
		case !ok:
			return "", &DefaultAgentError{Name: name, Reason: "does not exist", Choices: choices}
		case !a.Primary():
			return "", &DefaultAgentError{Name: name, Reason: "is a subagent", Choices: choices}
		case a.Hidden:
			return "", &DefaultAgentError{Name: name, Reason: "is hidden", Choices: choices}
		}
		return name, nil
	}
	for _, n := range order {
		if a, ok := r.agents[n]; ok && a.Primary() && !a.Hidden {
			return n, nil
		}
	}
	return "", fmt.Errorf("no visible primary agent is left: every one is disabled, hidden or a subagent")
}
