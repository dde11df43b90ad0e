// Package agent knows codeloop's agents and slash commands: the built-in
// agents (build, plan, general, explore and the hidden compaction, title and
// summary agents), custom agents from the config and from Markdown files in
// OpenCode's and Claude Code's locations, the slash commands from the same
// places, and the expansion of a command's template into the text, file
// references, agent mentions and subtask a user message is made of.
//
// It imports config, permission, paths, frontmatter, llm, message, skill
// and prompt. The session loop, the task tool, the app wiring and the
// command line import it; it never imports the session package.
package agent

import (
	"fmt"
	"slices"
	"strings"

	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/trust"
)

// Mode says where an agent may run: as the agent of a session the user
// talks to (primary), only through the task tool (subagent), or both (all).
type Mode string

// The modes an agent may have.
const (
	ModePrimary  Mode = "primary"
	ModeSubagent Mode = "subagent"
	ModeAll      Mode = "all"
)

// Valid reports whether m is one of the three modes.
func (m Mode) Valid() bool { return m == ModePrimary || m == ModeSubagent || m == ModeAll }

// Agent is one resolved agent: its identity, the model settings it asks for
// and the complete permission ruleset it runs under. Values handed out by a
// Registry share their slices and maps with it; treat them as read-only.
type Agent struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Mode        Mode   `json:"mode"`
	// Native marks the built-in agents.
	Native bool `json:"native,omitempty"`
	// Hidden agents are left out of pickers and @ completion.
	Hidden bool `json:"hidden,omitempty"`
	// Model is "provider/model", or empty for the caller's model.
	Model string `json:"model,omitempty"`
	// Variant is a reasoning preset; it applies only with the agent's own
	// Model.
	Variant string `json:"variant,omitempty"`
	// Prompt replaces the provider's system prompt when set.
	Prompt      string   `json:"prompt,omitempty"`
	Temperature *float64 `json:"temperature,omitempty"`
	TopP        *float64 `json:"top_p,omitempty"`
	// Steps caps the loop's model steps; the last one is text only.
	Steps *int `json:"steps,omitempty"`
	// Permission is the full ruleset: defaults, the user's rules, the
	// agent's own rules.
	Permission permission.Ruleset `json:"permission"`
	// Options are merged into the provider options of the agent's requests.
	Options map[string]any `json:"options,omitempty"`
	Color   string         `json:"color,omitempty"`
	// Source is where the agent was last defined or changed: "builtin",
	// "config", or the path of a Markdown file.
	Source string `json:"source,omitempty"`
}

// Primary reports whether the agent can be a session's own agent.
func (a *Agent) Primary() bool { return a.Mode != ModeSubagent }

// Subagent reports whether the task tool can run the agent.
func (a *Agent) Subagent() bool { return a.Mode != ModePrimary }

// ProviderModel splits Model at its first slash into provider and model
// ids; ok is false when Model is not of that form.
func (a *Agent) ProviderModel() (provider, model string, ok bool) {
	return SplitModel(a.Model)
}

// SplitModel splits "provider/model" at the first slash. Model ids may hold
// further slashes ("openrouter/anthropic/claude-sonnet-4").
func SplitModel(s string) (provider, model string, ok bool) {
	provider, model, ok = strings.Cut(s, "/")
	if !ok || provider == "" || model == "" {
		return "", "", false
	}
	return provider, model, true
}

// Registry holds the agents of one project. It is built once by Load and
// never changes, so it is safe for concurrent use.
type Registry struct {
	agents   map[string]*Agent
	order    []string // default agent first, then by name
	def      string
	warnings []error
	held     []trust.Item
}

// HeldBack lists what agent files of a project the user has not trusted
// would have loosened.
func (r *Registry) HeldBack() []trust.Item { return slices.Clone(r.held) }

// Get returns the agent called name.
func (r *Registry) Get(name string) (*Agent, bool) {
	a, ok := r.agents[name]
	return a, ok
}

// Lookup returns the agent called name, or an error that lists the agents
// there are.
func (r *Registry) Lookup(name string) (*Agent, error) {
	if a, ok := r.agents[name]; ok {
		return a, nil
	}
	var names []string
	for _, a := range r.List() {
		if !a.Hidden {
			names = append(names, a.Name)
		}
	}
	return nil, &NotFoundError{Kind: "agent", Name: name, Available: names}
}

// List returns every agent: the default agent first, the others by name.
func (r *Registry) List() []*Agent {
	out := make([]*Agent, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.agents[n])
	}
	return out
}

// Default returns the agent a session uses when none is chosen.
func (r *Registry) Default() *Agent { return r.agents[r.def] }

// Warnings lists the problems met while loading that did not stop it: agent
// files that could not be read or parsed, unknown model aliases. Each names
// the file or agent concerned.
func (r *Registry) Warnings() []error { return slices.Clone(r.warnings) }

// Subagents returns the agents the caller may hand work to through the task
// tool: every agent that can run as a sub-agent and that the caller's
// "task" permission does not deny, in List order. A nil caller sees all of
// them.
func (r *Registry) Subagents(caller *Agent) []*Agent {
	var out []*Agent
	for _, a := range r.List() {
		if !a.Subagent() {
			continue
		}
		if caller != nil {
			if rule, _ := permission.Evaluate("task", a.Name, caller.Permission); rule.Action == permission.Deny {
				continue
			}
		}
		out = append(out, a)
	}
	return out
}

// NotFoundError reports an agent or command that does not exist.
type NotFoundError struct {
	Kind      string // "agent" or "command"
	Name      string
	Available []string
}

func (e *NotFoundError) Error() string {
	msg := fmt.Sprintf("%s %q not found", e.Kind, e.Name)
	if len(e.Available) > 0 {
		msg += "; available: " + strings.Join(e.Available, ", ")
	}
	return msg
}

// DefaultAgentError reports a default_agent setting that cannot be used.
type DefaultAgentError struct {
	Name   string
	Reason string // "not found", "is a subagent", "is hidden", "is disabled"
	// Choices are the agents default_agent may name.
	Choices []string
}

func (e *DefaultAgentError) Error() string {
	return fmt.Sprintf("default_agent %q %s; it must name a visible primary agent (one of: %s)",
		e.Name, e.Reason, strings.Join(e.Choices, ", "))
}
