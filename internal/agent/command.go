package agent

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/skill"
	"github.com/codeloop/codeloop/internal/trust"
)

// Command is a slash command: a prompt template and how to run it.
type Command struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Agent runs the command; empty means the caller's agent.
	Agent string `json:"agent,omitempty"`
	// Model is "provider/model"; empty means the agent's or the caller's.
	Model   string `json:"model,omitempty"`
	Variant string `json:"variant,omitempty"`
	// Subtask forces (true) or forbids (false) running the command as a
	// subtask; unset, it runs as one when its agent is a sub-agent.
	Subtask  *bool  `json:"subtask,omitempty"`
	Template string `json:"template"`
	// Load, when set, produces the template when the command runs (an MCP
	// prompt is fetched from its server then); Template is ignored.
	Load func(ctx context.Context) (string, error) `json:"-"`
	// ArgumentHint describes the arguments for completion menus.
	ArgumentHint string `json:"argumentHint,omitempty"`
	// Source is "builtin", "config", "mcp", "skill" or the file's path.
	Source string `json:"source,omitempty"`
	// Claude marks commands from Claude Code's directories, whose
	// placeholders count from zero ($0 is the first argument) and may be
	// named by ArgumentNames.
	Claude        bool     `json:"claude,omitempty"`
	ArgumentNames []string `json:"argumentNames,omitempty"`
	// Allow are rules that pre-approve tools for the turn the command
	// starts (Claude Code's allowed-tools); they restrict nothing.
	Allow permission.Ruleset `json:"allow,omitempty"`
	// Held marks a command of a project the user has not trusted: its `!`
	// commands do not run (a note says so in their place) and it
	// pre-approves nothing.
	Held bool `json:"held,omitempty"`
}

// Hints lists the argument placeholders the template uses ("$1",
// "$ARGUMENTS"), in order of first use, for completion menus.
func (c *Command) Hints() []string {
	var out []string
	for _, m := range placeholderRE.FindAllString(c.Template, -1) {
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	if strings.Contains(c.Template, "$ARGUMENTS") {
		out = append(out, "$ARGUMENTS")
	}
	return out
}

// Source provides commands from elsewhere: MCP prompts, skills. A source's
// commands never replace commands of the same name defined by the user.
type Source interface {
	Commands(ctx context.Context) ([]Command, error)
}

// SourceFunc adapts a function to Source.
type SourceFunc func(ctx context.Context) ([]Command, error)

// Commands calls f.
func (f SourceFunc) Commands(ctx context.Context) ([]Command, error) { return f(ctx) }

// SkillSource offers each skill the user may invoke as a command of the
// same name whose template is the skill's body.
func SkillSource(set *skill.Set) Source {
	return SourceFunc(func(context.Context) ([]Command, error) {
		var out []Command
		for _, c := range set.Commands() {
			out = append(out, Command{Name: c.Name, Description: c.Description, ArgumentHint: c.ArgumentHint,
				Template: c.Template, Source: "skill"})
		}
		return out, nil
	})
}

// MCPPromptCommand makes a command of an MCP prompt, named
// "<server>:<prompt>". get fetches the prompt's text with the given argument
// values; it is called with "$1" … "$n" for the prompt's n arguments, so the
// command's positional arguments fill them.
func MCPPromptCommand(server, prompt, description string, args []string, get func(ctx context.Context, args map[string]string) (string, error)) Command {
	values := make(map[string]string, len(args))
	for i, a := range args {
		values[a] = fmt.Sprintf("$%d", i+1)
	}
	hint := ""
	if len(args) > 0 {
		hint = "<" + strings.Join(args, "> <") + ">"
	}
	return Command{
		Name: server + ":" + prompt, Description: description, Source: "mcp", ArgumentHint: hint,
		Load: func(ctx context.Context) (string, error) { return get(ctx, values) },
	}
}

// CommandSet holds the slash commands of one project. It never changes
// after LoadCommands, so it is safe for concurrent use.
type CommandSet struct {
	byName   map[string]*Command
	warnings []error
	held     []trust.Item
}

// HeldBack lists the `!` commands and pre-approved tools of command files
// of a project the user has not trusted.
func (s *CommandSet) HeldBack() []trust.Item { return slices.Clone(s.held) }

// hold marks c as held back when its file belongs to an untrusted project,
// and records what that holds back.
func (s *CommandSet) hold(c *Command, held func(string) bool) {
	if held == nil || !held(c.Source) {
		return
	}
	c.Held = true
	for _, snippet := range config.ShellSnippets(c.Template) {
		s.held = append(s.held, trust.Item{Kind: trust.KindCommand, Name: c.Name, Detail: "!`" + snippet + "`", File: c.Source})
	}
	for _, r := range c.Allow {
		s.held = append(s.held, trust.Item{Kind: trust.KindCommand, Name: c.Name, Detail: "allowed tool " + r.Permission + " " + r.Pattern, File: c.Source})
	}
	c.Allow = nil
}

// Get returns the command called name (without the leading slash).
func (s *CommandSet) Get(name string) (*Command, bool) {
	c, ok := s.byName[strings.TrimPrefix(name, "/")]
	return c, ok
}

// Lookup returns the command called name, or an error listing the
// commands there are.
func (s *CommandSet) Lookup(name string) (*Command, error) {
	if c, ok := s.Get(name); ok {
		return c, nil
	}
	return nil, &NotFoundError{Kind: "command", Name: name, Available: slices.Sorted(maps.Keys(s.byName))}
}

// List returns the commands sorted by name.
func (s *CommandSet) List() []*Command {
	out := make([]*Command, 0, len(s.byName))
	for _, n := range slices.Sorted(maps.Keys(s.byName)) {
		out = append(out, s.byName[n])
	}
	return out
}

// Warnings lists the command files that could not be used, each naming its
// file, and sources that failed.
func (s *CommandSet) Warnings() []error { return slices.Clone(s.warnings) }

// CommandOptions say where LoadCommands finds commands.
type CommandOptions struct {
	// Config supplies the "command" section.
	Config *config.Config
	// ConfigDirs are searched for command/ and commands/ sub-directories.
	ConfigDirs []string
	// Worktree and Cwd bound the search for .claude/commands; Home holds
	// the user's ~/.claude/commands.
	Worktree, Cwd, Home string
	// NoClaudeCode skips Claude Code's command directories.
	NoClaudeCode bool
	// Sources add MCP prompts, skills and the like.
	Sources []Source
	// Held reports whether a command file belongs to a project the user
	// has not trusted (see Command.Held). Nil holds nothing back.
	Held func(path string) bool
}

// Names of the built-in commands.
const (
	CommandInit   = "init"
	CommandReview = "review"
)

// builtinCommands returns init (guided AGENTS.md creation) and review
// (a code review run as a subtask).
func builtinCommands(worktree string) []Command {
	return []Command{
		{Name: CommandInit, Description: "create or update AGENTS.md for this project", Source: "builtin",
			Template: strings.ReplaceAll(text("init"), "${path}", worktree)},
		{Name: CommandReview, Description: "review changes [commit|branch|pr], defaults to uncommitted", Source: "builtin",
			Template: text("review"), Subtask: ptr(true), ArgumentHint: "[commit|branch|pr]"},
	}
}

// LoadCommands gathers the commands, later definitions replacing earlier
// ones of the same name: the built-ins, Claude Code's user commands, Claude
// Code's project commands from the worktree root down, the "command"
// section of the config, the command files of each config directory; then
// the sources, whose commands only fill names still free.
func LoadCommands(ctx context.Context, o CommandOptions) *CommandSet {
	s := &CommandSet{byName: map[string]*Command{}}
	put := func(c Command) { s.byName[c.Name] = &c }
	for _, c := range builtinCommands(o.Worktree) {
		put(c)
	}
	if !o.NoClaudeCode {
		var dirs []string
		if o.Home != "" {
			dirs = append(dirs, filepath.Join(o.Home, ".claude"))
		}
		for _, d := range ancestors(o.Cwd, o.Worktree) {
			if d != o.Home {
				dirs = append(dirs, filepath.Join(d, ".claude"))
			}
		}
		for _, d := range dirs {
			for _, f := range findMarkdown(d, []string{"commands"}, false) {
				c, err := parseCommandFile(f.path, strings.ReplaceAll(f.name, "/", ":"), true)
				if err != nil {
					s.warnings = append(s.warnings, err)
					continue
				}
				s.hold(&c, o.Held)
				put(c)
			}
		}
	}
	if o.Config != nil {
		for _, name := range slices.Sorted(maps.Keys(o.Config.Command)) {
			cc := o.Config.Command[name]
			put(Command{Name: name, Description: cc.Description, Agent: cc.Agent, Model: cc.Model,
				Variant: cc.Variant, Subtask: cc.Subtask, Template: cc.Template, Source: "config", Held: cc.Held})
		}
	}
	for _, dir := range o.ConfigDirs {
		for _, f := range findMarkdown(dir, []string{"command", "commands"}, false) {
			c, err := parseCommandFile(f.path, f.name, false)
			if err != nil {
				s.warnings = append(s.warnings, err)
				continue
			}
			s.hold(&c, o.Held)
			put(c)
		}
	}
	for _, src := range o.Sources {
		cmds, err := src.Commands(ctx)
		if err != nil {
			s.warnings = append(s.warnings, fmt.Errorf("loading commands: %w", err))
			continue
		}
		for _, c := range cmds {
			if _, taken := s.byName[c.Name]; !taken && c.Name != "" {
				put(c)
			}
		}
	}
	return s
}

// claudeAgentNames maps Claude Code's built-in sub-agent names to ours.
var claudeAgentNames = map[string]string{"general-purpose": General, "Explore": Explore, "Plan": Plan}

// parseCommandFile reads a command file: frontmatter with description,
// agent, model, variant and subtask (and Claude Code's argument-hint,
// arguments, context: fork), the body as the template. Errors name the
// file.
func parseCommandFile(p, name string, claude bool) (Command, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return Command{}, &FileError{Path: p, Err: err}
	}
	return ParseCommandFile(p, data, name, claude)
}

// ParseCommandFile parses the command file p holding data; name is the name
// its location gives. claude selects Claude Code's semantics.
func ParseCommandFile(p string, data []byte, name string, claude bool) (Command, error) {
	m, body, err := parseFront(p, data)
	if err != nil {
		return Command{}, err
	}
	c := Command{
		Name:         name,
		Template:     body,
		Description:  scalar(field(m, "description")),
		Agent:        scalar(field(m, "agent")),
		Model:        scalar(field(m, "model")),
		Variant:      scalar(field(m, "variant")),
		ArgumentHint: scalar(field(m, "argument-hint")),
		Source:       p,
		Claude:       claude,
	}
	if st := field(m, "subtask"); st != nil {
		var b bool
		if err := st.Decode(&b); err != nil {
			return Command{}, &FileError{Path: p, Err: fmt.Errorf("subtask: want true or false, got %q", st.Value)}
		}
		c.Subtask = &b
	}
	if claude {
		// Claude Code runs a command in a sub-agent only with context: fork;
		// its agent field means nothing otherwise.
		if scalar(field(m, "context")) == "fork" {
			c.Subtask = ptr(true)
			if c.Agent == "" {
				c.Agent = General
			}
			if mapped, ok := claudeAgentNames[c.Agent]; ok {
				c.Agent = mapped
			}
		} else {
			c.Agent = ""
		}
		for _, t := range list(field(m, "allowed-tools")) {
			for _, r := range ClaudeToolRules(t, "allow") {
				c.Allow = append(c.Allow, permission.Rule{Permission: r.Permission, Pattern: r.Pattern, Action: permission.Allow})
			}
		}
		if c.Model != "" && !strings.Contains(c.Model, "/") {
			c.Model = "" // Claude Code aliases name no provider; the caller's model is used
		}
		c.ArgumentNames = strings.Fields(strings.Join(list(field(m, "arguments")), " "))
		if c.Description == "" {
			c.Description = firstLine(body)
		}
	}
	if strings.TrimSpace(c.Template) == "" {
		return Command{}, &FileError{Path: p, Err: fmt.Errorf("command %q has an empty template", name)}
	}
	return c, nil
}

// firstLine returns the first non-empty line of s, without heading marks.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(strings.TrimLeft(l, "# ")); l != "" {
			return l
		}
	}
	return ""
}
