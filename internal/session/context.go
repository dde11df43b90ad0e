package session

import (
	"context"
	"fmt"

	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/permission"
)

// ContextUsage is what fills a session's context window, as the next step
// would send it: estimates of a token per four characters by part, and
// the tokens the model counted at the last step.
type ContextUsage struct {
	// Model is the model of the session's newest prompt; Limit its
	// window, 0 when unknown.
	Model message.ModelRef
	Limit int64
	// Used is what the model counted at the last step: prompt, cache and
	// answer; 0 before the first answer.
	Used int64
	// Parts are in the order the request holds them.
	Parts []ContextPart
	// Compactable estimates the history a compaction would replace with
	// its summary: everything before the turns it keeps.
	Compactable int64
	// Cost is the session's cost so far; TurnCost that of the answers to
	// its newest prompt.
	Cost, TurnCost float64
}

// The kinds of ContextPart.
const (
	ContextSystem      = "system"      // the system prompt less the instruction files
	ContextTools       = "tools"       // the tools' names, descriptions and schemas
	ContextInstruction = "instruction" // one instruction file; Name is its path or URL
	ContextMessages    = "messages"    // what the user and the model wrote, tool inputs
	ContextToolOutput  = "tool_output" // what the tools answered
)

// ContextPart is one part of the context and its estimated tokens.
type ContextPart struct {
	Kind, Name string
	Tokens     int64
}

// InstructionLister is implemented by a SystemPrompt that can list the
// instruction files it adds, so ContextUsage can count each one.
type InstructionLister interface {
	InstructionFiles(ctx context.Context) ([]NamedText, error)
}

// NamedText is a text and where it comes from.
type NamedText struct {
	Name, Text string
}

// ContextUsage reports what fills sessionID's context window at its
// newest prompt. A session without a prompt yet has no parts.
func (e *Engine) ContextUsage(ctx context.Context, sessionID string) (ContextUsage, error) {
	var out ContextUsage
	sess, err := e.sessions.Get(ctx, sessionID)
	if err != nil {
		return out, err
	}
	out.Cost = sess.Cost
	v, err := e.sessions.View(ctx, sessionID)
	if err != nil {
		return out, err
	}
	msgs := v.Model
	l := message.FindLatest(msgs)
	if l.User == nil {
		return out, nil
	}
	out.Model = l.User.Info.Model
	for i := len(msgs) - 1; i >= 0; i-- {
		m := &msgs[i]
		if m.Info.Role == message.RoleAssistant && m.Info.ParentID == l.User.Info.ID {
			out.TurnCost += m.Info.Cost
		}
		if out.Used == 0 && m.Info.Role == message.RoleAssistant {
			t := m.Info.Tokens
			out.Used = t.Input + t.Output + t.Reasoning + t.Cache.Read + t.Cache.Write
		}
	}

	agent, err := e.cfg.Agents.Agent(ctx, l.User.Info.Agent)
	if err != nil {
		return out, fmt.Errorf("agent %s: %w", l.User.Info.Agent, err)
	}
	_, model, err := e.cfg.Models.Model(ctx, l.User.Info.Model)
	if err != nil {
		return out, fmt.Errorf("model %s: %w", l.User.Info.Model, err)
	}
	out.Limit = model.Limit.Context
	rules := permission.Merge(agent.Permission, sess.Permission, rulesOfTurn(l.User.Info))
	tools, err := e.resolveTools(ctx, sessionID, agent, model, rules, l.User.Info.Tools())
	if err != nil {
		return out, err
	}
	ids := make([]string, 0, len(tools))
	toolChars := 0
	for _, t := range tools {
		if t.ID() == InvalidTool {
			continue
		}
		ids = append(ids, t.ID())
		toolChars += len(t.ID()) + len(t.Description()) + len(t.Schema())
	}
	system, err := e.system(ctx, SystemInput{SessionID: sessionID, Agent: agent, Model: model,
		Directory: e.cfg.Directory, Worktree: e.cfg.Worktree, Tools: ids}, l.User)
	if err != nil {
		return out, err
	}
	systemChars := 0
	for _, s := range system {
		systemChars += len(s)
	}
	var files []ContextPart
	if il, ok := e.cfg.System.(InstructionLister); ok {
		list, err := il.InstructionFiles(ctx)
		if err != nil {
			return out, err
		}
		for _, f := range list {
			systemChars -= len(f.Text)
			files = append(files, ContextPart{Kind: ContextInstruction, Name: f.Name, Tokens: estimate(len(f.Text))})
		}
	}
	out.Parts = append(out.Parts, ContextPart{Kind: ContextSystem, Tokens: estimate(max(systemChars, 0))})
	out.Parts = append(out.Parts, files...)
	out.Parts = append(out.Parts, ContextPart{Kind: ContextTools, Tokens: estimate(toolChars)})

	written, outputs := historyChars(msgs)
	out.Parts = append(out.Parts, ContextPart{Kind: ContextMessages, Tokens: estimate(written)},
		ContextPart{Kind: ContextToolOutput, Tokens: estimate(outputs)})
	if tail := tailStart(msgs, defaultTailTurns); tail > 0 {
		w, o := historyChars(msgs[:tail])
		out.Compactable = estimate(w + o)
	}
	return out, nil
}

// historyChars counts the characters of msgs that the user and the model
// wrote (tool inputs included) and those the tools answered.
func historyChars(msgs []message.Message) (written, outputs int) {
	for i := range msgs {
		for _, p := range msgs[i].Parts {
			switch p := p.(type) {
			case *message.TextPart:
				written += len(p.Text)
			case *message.ReasoningPart:
				written += len(p.Text)
			case *message.ToolPart:
				written += len(p.State.Input)
				outputs += len(p.State.Output) + len(p.State.Error)
			}
		}
	}
	return written, outputs
}

// tailStart is the index of the first message of the last turns user
// turns, 0 when the history has no more turns than that.
func tailStart(msgs []message.Message, turns int) int {
	seen := 0
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Info.Role == message.RoleUser {
			seen++
			if seen == turns {
				return i
			}
		}
	}
	return 0
}
