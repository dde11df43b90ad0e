// Package task is the task tool: it runs a sub-agent in a child session of
// the caller's session and returns the sub-agent's final answer. The child
// session itself is run by a Runner, which the session engine implements
// and the app injects, so this package never imports the session package.
//
// It imports agent, tool and permission; the app wiring imports it.
package task

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/codeloop/codeloop/internal/agent"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/tool"
)

// ID is the tool's id and the permission name it asks under.
const ID = "task"

// DefaultDepth is how many levels of sub-agents may run below a session
// the user talks to when subagent_depth is unset: sub-agents cannot start
// sub-agents of their own.
const DefaultDepth = 1

//go:embed task.txt
var descriptionText string

// Runner runs sub-agents in child sessions. The session engine implements
// it.
type Runner interface {
	// Caller describes the session calling the tool and the assistant
	// message the call belongs to.
	Caller(ctx context.Context, sessionID, messageID string) (Caller, error)
	// RunChild sends Prompt to a child session and runs its loop to
	// completion. It continues the session SessionID when that is an
	// existing child of ParentID and creates a new child otherwise.
	// Cancelling ctx must stop the child's loop; RunChild returns once it
	// has stopped.
	RunChild(ctx context.Context, req ChildRequest) (ChildResult, error)
}

// Caller is what the tool needs to know about the calling session.
type Caller struct {
	// Depth is the number of ancestors of the calling session: 0 for a
	// session the user talks to.
	Depth int
	// Permission are the calling session's own rules (not its agent's).
	Permission permission.Ruleset
	// Model ("provider/model") and Variant of the calling message.
	Model   string
	Variant string
}

// ChildRequest asks a Runner to run a sub-agent.
type ChildRequest struct {
	ParentID string
	// SessionID is the child to continue (the task_id argument); empty
	// for a new child.
	SessionID string
	// Title, Agent and Permission are those of a new child session; a
	// continued child keeps its own.
	Title      string
	Agent      string
	Permission permission.Ruleset
	// Model is "provider/model"; Variant applies with it.
	Model   string
	Variant string
	// Prompt is the user message sent to the child; its @ mentions are
	// resolved as in any prompt.
	Prompt  string
	Command string
	// Started, when set, is called with the child's id once the child
	// session exists, before it runs.
	Started func(sessionID string)
}

// ChildResult is the outcome of a sub-agent run.
type ChildResult struct {
	SessionID string
	// Text is the last text part of the child's final assistant message.
	Text string
}

// Options configure the tool.
type Options struct {
	Agents *agent.Registry
	Runner Runner
	// Depth is subagent_depth; zero or less means DefaultDepth.
	Depth int
	// PrimaryTools are tools only primary agents may use
	// (experimental.primary_tools); child sessions deny them.
	PrimaryTools []string
}

// Tool is the task tool.
type Tool struct {
	opts Options
	def  tool.Tool // validates and decodes the arguments
}

// params are the tool's arguments; the names are OpenCode's.
type params struct {
	Description  string `json:"description" jsonschema:"the task in 3-5 words"`
	Prompt       string `json:"prompt" jsonschema:"everything the sub-agent needs to know"`
	SubagentType string `json:"subagent_type" jsonschema:"which sub-agent to run"`
	TaskID       string `json:"task_id,omitempty" jsonschema:"only to continue an earlier task: the id its result started with"`
	Command      string `json:"command,omitempty" jsonschema:"the slash command that started this task, if any"`
}

// New returns the task tool.
func New(o Options) *Tool {
	if o.Depth <= 0 {
		o.Depth = DefaultDepth
	}
	t := &Tool{opts: o}
	t.def = tool.Must(tool.Def[params]{ID: ID, Run: t.run, Summary: summary})
	return t
}

// ID returns "task".
func (t *Tool) ID() string { return ID }

// Schema returns the JSON Schema of the arguments.
func (t *Tool) Schema() json.RawMessage { return t.def.Schema() }

// Traits say the task tool delegates: the sub-agent's own calls are
// recorded, and snapshotted, in its session.
func (t *Tool) Traits() tool.Traits { return tool.Traits{Kind: tool.KindThink, Contained: true} }

// Touches returns nil: what a sub-agent touches is its own calls'.
func (t *Tool) Touches(json.RawMessage, string) []tool.Touch { return nil }

// Summary is the task's description and the sub-agent that does it.
func (t *Tool) Summary(input json.RawMessage, dir string) string {
	return t.def.(tool.Describer).Summary(input, dir)
}

// summary is what a call's line says of a task: its description, with
// the sub-agent that runs it.
func summary(p params, _ string) string {
	switch {
	case p.Description == "":
		return ""
	case p.SubagentType == "":
		return p.Description
	}
	return p.Description + " (@" + p.SubagentType + ")"
}

// Description lists every sub-agent; DescriptionFor is what an agent
// should be shown.
func (t *Tool) Description() string { return t.describe(nil) }

// DescriptionFor lists the sub-agents the named agent may start: those
// its task permission does not deny.
func (t *Tool) DescriptionFor(agentName string) string {
	a, _ := t.opts.Agents.Get(agentName)
	return t.describe(a)
}

// ForAgent returns the tool as the named agent should see it: the same
// tool, described with the sub-agents that agent may start.
func (t *Tool) ForAgent(agentName string) tool.Tool {
	return agentView{Tool: t, desc: t.DescriptionFor(agentName)}
}

// agentView is the task tool with an agent's description.
type agentView struct {
	*Tool
	desc string
}

func (v agentView) Description() string { return v.desc }

func (t *Tool) describe(caller *agent.Agent) string {
	var b strings.Builder
	for _, a := range t.opts.Agents.Subagents(caller) {
		desc := a.Description
		if desc == "" {
			desc = "This sub-agent should only be started when the user asks for it."
		}
		fmt.Fprintf(&b, "- %s: %s\n", a.Name, desc)
	}
	list := strings.TrimSuffix(b.String(), "\n")
	if list == "" {
		list = "(none)"
	}
	return strings.TrimSpace(strings.Replace(descriptionText, "{agents}", list, 1))
}

type userKey struct{}

// UserInitiated marks the calls made under the returned context as asked
// for by the user (a subtask part from a slash command, an @agent mention):
// the tool then skips the task permission check.
func UserInitiated(ctx context.Context) context.Context {
	return context.WithValue(ctx, userKey{}, true)
}

func userInitiated(ctx context.Context) bool {
	v, _ := ctx.Value(userKey{}).(bool)
	return v
}

// DepthError refuses a sub-agent below the configured depth.
type DepthError struct {
	Agent string
	Depth int // ancestors of the calling session
	Limit int // subagent_depth
}

func (e *DepthError) Error() string {
	return fmt.Sprintf("cannot start the %q sub-agent: this session is already %d level(s) below the main session "+
		"and subagent_depth allows %d; do this work yourself with your own tools", e.Agent, e.Depth, e.Limit)
}

// Run starts (or continues) the sub-agent and waits for its answer.
func (t *Tool) Run(ctx context.Context, call *tool.Call) (*tool.Result, error) {
	return t.def.Run(ctx, call)
}

func (t *Tool) run(ctx context.Context, call *tool.Call, p params) (*tool.Result, error) {
	switch {
	case p.SubagentType == "":
		return nil, &tool.InvalidArgumentsError{Tool: ID, Detail: "subagent_type is required"}
	case strings.TrimSpace(p.Prompt) == "":
		return nil, &tool.InvalidArgumentsError{Tool: ID, Detail: "prompt is required"}
	}
	if t.opts.Runner == nil || t.opts.Agents == nil {
		return nil, errors.New("sub-agents are not available in this session")
	}
	user := userInitiated(ctx)
	sub, err := t.opts.Agents.Lookup(p.SubagentType)
	if err != nil {
		var names []string
		for _, a := range t.opts.Agents.Subagents(nil) {
			names = append(names, a.Name)
		}
		return nil, fmt.Errorf("unknown agent type: %q is not a valid agent type; use one of: %s", p.SubagentType, strings.Join(names, ", "))
	}
	caller, err := t.opts.Runner.Caller(ctx, call.SessionID, call.MessageID)
	if err != nil {
		return nil, err
	}
	if caller.Depth >= t.opts.Depth {
		return nil, &DepthError{Agent: sub.Name, Depth: caller.Depth, Limit: t.opts.Depth}
	}
	if !user {
		err := call.Ask(ctx, permission.Request{
			Permission: ID, Patterns: []string{sub.Name}, Always: []string{"*"},
			Metadata: map[string]any{"description": p.Description, "subagent_type": sub.Name},
		})
		if err != nil {
			return nil, err
		}
	}

	parentAgent, _ := t.opts.Agents.Get(call.Agent)
	req := ChildRequest{
		ParentID:   call.SessionID,
		SessionID:  p.TaskID,
		Title:      fmt.Sprintf("%s (@%s subagent)", p.Description, sub.Name),
		Agent:      sub.Name,
		Permission: ChildPermission(caller.Permission, parentAgent, sub, t.opts.PrimaryTools),
		Model:      caller.Model,
		Variant:    caller.Variant,
		Prompt:     p.Prompt,
		Command:    p.Command,
	}
	if sub.Model != "" {
		req.Model, req.Variant = sub.Model, sub.Variant
	}
	metadata := func(sessionID string) map[string]any {
		return map[string]any{"sessionId": sessionID, "parentSessionId": call.SessionID, "model": req.Model}
	}
	req.Started = func(sessionID string) {
		if call.Progress != nil {
			call.Progress(p.Description, metadata(sessionID))
		}
	}
	res, err := t.opts.Runner.RunChild(ctx, req)
	if err != nil {
		return nil, err
	}
	return &tool.Result{Title: p.Description, Output: Output(res.SessionID, res.Text), Metadata: metadata(res.SessionID)}, nil
}

// Output wraps a sub-agent's answer the way the model receives it.
func Output(sessionID, text string) string {
	return fmt.Sprintf("<task id=%q state=\"completed\">\n<task_result>\n%s\n</task_result>\n</task>", sessionID, text)
}

// ChildPermission is the session ruleset of a new child session running
// sub: the parent agent's edit denials that sub lacks (so a plan-mode
// parent cannot edit through a sub-agent), the parent session's floor
// rules (those a client sent with it), deny and external_directory rules,
// and denials of todowrite and task unless sub's
// own rules mention them, and of the primary-only tools.
func ChildPermission(parentSession permission.Ruleset, parentAgent, sub *agent.Agent, primaryTools []string) permission.Ruleset {
	var out permission.Ruleset
	if parentAgent != nil {
		subDenies := map[string]bool{}
		for _, r := range sub.Permission {
			if r.Permission == "edit" && r.Action == permission.Deny {
				subDenies[r.Pattern] = true
			}
		}
		for _, r := range parentAgent.Permission {
			if r.Permission == "edit" && r.Action == permission.Deny && !subDenies[r.Pattern] {
				out = append(out, r)
			}
		}
	}
	for _, r := range parentSession {
		// Floor rules, those a client sent with the session, only tighten:
		// all of them hold for the child, their ask rules included, so a
		// sub-agent cannot do without asking what its caller must ask.
		if r.Floor || r.Permission == "external_directory" || r.Action == permission.Deny {
			out = append(out, r)
		}
	}
	mentions := func(name string) bool {
		return slices.ContainsFunc(sub.Permission, func(r permission.Rule) bool { return r.Permission == name })
	}
	var denies permission.Ruleset
	if !mentions("todowrite") {
		denies = append(denies, permission.Rule{Permission: "todowrite", Pattern: "*", Action: permission.Deny})
	}
	if !mentions(ID) {
		denies = append(denies, permission.Rule{Permission: ID, Pattern: "*", Action: permission.Deny})
	}
	for _, name := range primaryTools {
		denies = append(denies, permission.Rule{Permission: name, Pattern: "*", Action: permission.Deny})
	}
	for _, d := range denies {
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}
