package app

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/codeloop/codeloop/internal/agent"
	"github.com/codeloop/codeloop/internal/lsp"
	"github.com/codeloop/codeloop/internal/mcp"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/prompt"
	"github.com/codeloop/codeloop/internal/session"
	"github.com/codeloop/codeloop/internal/skill"
	"github.com/codeloop/codeloop/internal/task"
	"github.com/codeloop/codeloop/internal/tool"
)

// agents serves the agent registry to the session engine.
type agents struct{ reg *agent.Registry }

func (a agents) Agent(_ context.Context, name string) (*session.Agent, error) {
	var ag *agent.Agent
	if name == "" {
		ag = a.reg.Default()
	} else {
		var err error
		if ag, err = a.reg.Lookup(name); err != nil {
			return nil, err
		}
	}
	return sessionAgent(ag), nil
}

func sessionAgent(a *agent.Agent) *session.Agent {
	s := &session.Agent{
		Name: a.Name, Mode: string(a.Mode), Prompt: a.Prompt, Variant: a.Variant,
		Temperature: a.Temperature, TopP: a.TopP, Permission: a.Permission, Options: a.Options, Hidden: a.Hidden,
	}
	if ref, ok := ParseModel(a.Model); ok {
		ref.Variant = a.Variant
		s.Model = &ref
	}
	if a.Steps != nil {
		s.Steps = *a.Steps
	}
	return s
}

// tools lists the built-in tools, the task and skill tools and the MCP
// servers' tools for a step.
type tools struct {
	builtin []tool.Tool
	mcp     *mcp.Manager
	// mcpWait bounds how long the first step waits for MCP servers still
	// connecting, so their tools are there when the model first looks;
	// a server that comes up later adds its tools from the next step on.
	mcpWait  time.Duration
	mcpReady sync.Once
	// lspTool is offered while lsp runs a server for the project.
	lsp     *lsp.Manager
	lspTool tool.Tool
}

func (t *tools) Tools(ctx context.Context, q session.ToolQuery) ([]tool.Tool, error) {
	all := slices.Clone(t.builtin)
	if t.mcp != nil {
		t.mcpReady.Do(func() { t.mcp.WaitReady(ctx, t.mcpWait) })
		all = append(all, t.mcp.Tools()...)
	}
	if t.lspTool != nil && t.lsp.Running() {
		all = append(all, t.lspTool)
	}
	if q.Agent != nil {
		// Each agent sees the task tool listing only the sub-agents it may start.
		for i, tl := range all {
			if tt, ok := tl.(*task.Tool); ok {
				all[i] = tt.ForAgent(q.Agent.Name)
			}
		}
	}
	reg := tool.NewRegistry(all...)
	return reg.For(tool.Filter{
		Model: q.Model.ID,
		Disabled: func(id string) bool {
			return permission.Disabled([]string{tool.PermissionOf(id)}, q.Rules)[tool.PermissionOf(id)]
		},
	}), nil
}

// system builds system prompts with the prompt package.
type system struct {
	b      *prompt.Builder
	skills *skill.Set
	mcp    *mcp.Manager
}

func (s *system) System(ctx context.Context, in session.SystemInput) ([]string, error) {
	pin := prompt.Input{Model: in.Model, AgentPrompt: in.Agent.Prompt}
	if slices.Contains(in.Tools, "skill") {
		rules := in.Agent.Permission
		pin.Skills = s.skills.ForModel(func(name string) bool {
			r, _ := permission.Evaluate("skill", name, rules)
			return r.Action != permission.Deny
		})
	}
	if s.mcp != nil {
		pin.MCPInstructions = s.mcp.Instructions()
	}
	return s.b.Build(ctx, pin)
}

// reminders adds the plan-mode and plan-to-build reminders, in memory only.
type reminders struct{}

func (reminders) Remind(a *session.Agent, history []message.Message) []message.Message {
	text := ""
	switch a.Name {
	case "plan":
		text = prompt.PlanReminder()
	case "build":
		for _, m := range history {
			if m.Info.Role == message.RoleAssistant && m.Info.Agent == "plan" {
				text = prompt.BuildSwitchReminder()
				break
			}
		}
	}
	if text == "" {
		return history
	}
	out := slices.Clone(history)
	for i := len(out) - 1; i >= 0; i-- {
		if out[i].Info.Role != message.RoleUser {
			continue
		}
		out[i].Parts = append(slices.Clip(out[i].Parts), &message.TextPart{Text: text, Synthetic: true})
		break
	}
	return out
}

// runner lets the task tool run sub-agents on the engine, which is made
// after the tools.
type runner struct {
	mu  sync.Mutex
	eng *session.Engine
	// mentions turns the @ mentions of a sub-agent's prompt into parts.
	mentions func(text string) []message.Part
}

func (r *runner) engine() *session.Engine {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.eng
}

func (r *runner) Caller(ctx context.Context, sessionID, messageID string) (task.Caller, error) {
	c, err := r.engine().Caller(ctx, sessionID, messageID)
	if err != nil {
		return task.Caller{}, err
	}
	return task.Caller{Depth: c.Depth, Permission: c.Permission, Model: c.Model.String(), Variant: c.Model.Variant}, nil
}

func (r *runner) RunChild(ctx context.Context, req task.ChildRequest) (task.ChildResult, error) {
	in := session.ChildInput{
		ParentID: req.ParentID, SessionID: req.SessionID, Title: req.Title, Agent: req.Agent,
		Permission: req.Permission, Prompt: req.Prompt, Started: req.Started,
	}
	if r.mentions != nil {
		in.Parts = r.mentions(req.Prompt)
	}
	if ref, ok := ParseModel(req.Model); ok {
		ref.Variant = req.Variant
		in.Model = &ref
	}
	id, text, err := r.engine().RunChild(ctx, in)
	return task.ChildResult{SessionID: id, Text: text}, err
}

// InstructionFiles lists the instruction files and URLs the system prompt
// adds, each with the text it adds, for the context's breakdown.
func (s *system) InstructionFiles(ctx context.Context) ([]session.NamedText, error) {
	list, err := s.b.Instructions(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]session.NamedText, 0, len(list))
	for _, in := range list {
		out = append(out, session.NamedText{Name: in.Source, Text: in.Text()})
	}
	return out, nil
}
