package agent

import (
	"context"
	"fmt"
	"strings"
)

// Expander turns slash commands into message content.
type Expander struct {
	Agents   *Registry
	Commands *CommandSet
	// Resolver finds the files, agents and MCP resources the expanded text
	// mentions; its Worktree is also the project directory of Claude Code
	// templates.
	Resolver Resolver
	// Shell runs the template's `!` commands; nil refuses templates that
	// have any.
	Shell ShellFunc
}

// ExpandInput names the command to run and who runs it.
type ExpandInput struct {
	// Command is the command's name, with or without the leading slash.
	Command string
	// Arguments is everything the user typed after the name.
	Arguments string
	// Agent is the caller's current agent; empty means the default agent.
	Agent string
}

// Expand runs the command's template: it fills the argument placeholders,
// replaces `!` commands by their output, trims the result and resolves its
// @ mentions. The command runs as a subtask when it says so (subtask: true)
// or when its agent is a sub-agent and it does not forbid it (subtask:
// false).
func (x *Expander) Expand(ctx context.Context, in ExpandInput) (*Expansion, error) {
	cmd, err := x.Commands.Lookup(in.Command)
	if err != nil {
		return nil, err
	}
	caller := in.Agent
	if caller == "" {
		caller = x.Agents.Default().Name
	}
	agentName := cmd.Agent
	if agentName == "" {
		agentName = caller
	}
	agent, err := x.Agents.Lookup(agentName)
	if err != nil {
		return nil, fmt.Errorf("command %q: %w", cmd.Name, err)
	}
	text, err := x.Text(ctx, cmd, in.Arguments)
	if err != nil {
		return nil, err
	}

	// The command's model, else its own agent's.
	model := cmd.Model
	if model == "" && cmd.Agent != "" {
		model = agent.Model
	}
	out := &Expansion{Command: cmd.Name, Variant: cmd.Variant, Allow: cmd.Allow}
	subtask := (cmd.Subtask == nil && agent.Mode == ModeSubagent) || (cmd.Subtask != nil && *cmd.Subtask)
	if subtask {
		// The user message stays with the caller's agent and model; the
		// sub-agent gets the text alone.
		out.Agent = caller
		out.Subtask = &SubtaskSpec{Agent: agent.Name, Description: cmd.Description, Prompt: text, Model: model, Command: cmd.Name}
		return out, nil
	}
	out.Agent, out.Model, out.Text = agent.Name, model, text
	r := x.Resolver
	r.Agents = x.Agents
	out.Files, out.Agents, out.Resources = r.Resolve(text)
	return out, nil
}

// Text returns a command's template with its arguments and `!` commands
// filled in, trimmed.
func (x *Expander) Text(ctx context.Context, cmd *Command, args string) (string, error) {
	template := cmd.Template
	if cmd.Load != nil {
		t, err := cmd.Load(ctx)
		if err != nil {
			return "", fmt.Errorf("command %q: %w", cmd.Name, err)
		}
		template = t
	}
	var text string
	if cmd.Claude {
		text = SubstituteClaude(template, args, cmd.ArgumentNames, x.Resolver.Worktree)
	} else {
		text = Substitute(template, args)
	}
	shell := x.Shell
	if cmd.Held {
		shell = heldShell
	}
	text, err := runShell(ctx, text, cmd.Claude, shell)
	if err != nil {
		return "", fmt.Errorf("command %q: %w", cmd.Name, err)
	}
	return strings.TrimSpace(text), nil
}

// heldShell stands in for the shell in a command of a project the user has
// not trusted: the command is not run, and a note says so in its place.
func heldShell(_ context.Context, command string) (string, error) {
	return "[not run: this project is not trusted, so its command templates run no shell commands; `codeloop trust` lets them run]", nil
}
