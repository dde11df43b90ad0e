package app

import (
	"context"

	"github.com/codeloop/codeloop/internal/agent"
	"github.com/codeloop/codeloop/internal/mcp"
	"github.com/codeloop/codeloop/internal/permission"
)

// Commands returns the project's slash commands: the built-ins, Claude
// Code's and OpenCode's command files, the config's, then the skills the
// user may invoke and the prompts of the connected MCP servers.
func (a *App) Commands(ctx context.Context) *agent.CommandSet {
	sources := []agent.Source{agent.SkillSource(a.skills)}
	if a.MCP != nil {
		sources = append(sources, mcpPrompts(a.MCP))
	}
	return a.commands(ctx, sources)
}

// commands loads the commands of the files and the config, and those of
// sources.
func (a *App) commands(ctx context.Context, sources []agent.Source) *agent.CommandSet {
	return agent.LoadCommands(ctx, agent.CommandOptions{
		Config: a.Config.Config, ConfigDirs: a.Config.Dirs, Worktree: a.Worktree, Cwd: a.Dir,
		Home: a.Dirs.Home, NoClaudeCode: a.noClaude, Sources: sources, Held: a.held,
	})
}

// mcpPrompts offers each MCP prompt as the command <server>:<prompt>,
// fetched from its server when it runs.
func mcpPrompts(m *mcp.Manager) agent.Source {
	return agent.SourceFunc(func(context.Context) ([]agent.Command, error) {
		var out []agent.Command
		for _, p := range m.Prompts() {
			names := make([]string, len(p.Arguments))
			for i, arg := range p.Arguments {
				names[i] = arg.Name
			}
			c := agent.MCPPromptCommand(p.Server, p.Name, p.Description, names,
				func(ctx context.Context, _ map[string]string) (string, error) { return m.PromptTemplate(ctx, p) })
			c.Name = p.Command()
			out = append(out, c)
		}
		return out, nil
	})
}

// ExpandCommand expands the slash command name with the arguments the user
// typed, for the caller's agent (empty: the default). A name no command has
// yet waits for the MCP servers still connecting, whose prompts are
// commands. Its `!` commands run
// with the configured shell in the working directory; its @ mentions are
// resolved against the worktree.
func (a *App) ExpandCommand(ctx context.Context, name, args, caller string) (*agent.Expansion, error) {
	cmds := a.Commands(ctx)
	if _, ok := cmds.Get(name); !ok && a.MCP != nil {
		// It may be the prompt of a server still connecting.
		a.MCP.WaitReady(ctx, a.mcpWait)
		cmds = a.Commands(ctx)
	}
	x := &agent.Expander{
		Agents: a.Agents, Commands: cmds,
		Resolver: a.resolver(a.Worktree),
		Shell:    agent.Shell(a.Config.Config.Shell, a.Dir, nil),
	}
	return x.Expand(ctx, agent.ExpandInput{Command: name, Arguments: args, Agent: caller})
}

// TurnRules returns the rules of allow (a command's allowed tools) that may
// pre-approve the turn of agentName (empty: the default) in a session with
// the given rules: those that the agent's and the session's rules do not
// deny. Allowed tools approve; they never lift a denial.
func (a *App) TurnRules(agentName string, sessionRules permission.Ruleset, allow permission.Ruleset) (permission.Ruleset, error) {
	ag, err := (agents{a.Agents}).Agent(context.Background(), agentName)
	if err != nil {
		return nil, err
	}
	var out permission.Ruleset
	for _, r := range allow {
		if got, ok := permission.Evaluate(r.Permission, r.Pattern, ag.Permission, sessionRules); ok && got.Action == permission.Deny {
			continue
		}
		out = append(out, r)
	}
	return out, nil
}
