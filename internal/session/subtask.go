package session

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/codeloop/codeloop/internal/hook"
	"github.com/codeloop/codeloop/internal/id"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/tool"
)

// TaskTool is the id of the tool that runs a subagent.
const TaskTool = "task"

// subtaskSummary follows a subtask a command started, so the conversation
// goes on with a user turn.
const subtaskSummary = "Summarize the task tool output above and continue with your task."

// runSubtask runs a pending subtask part directly through the task tool,
// in an assistant message of its own, as if the model had called it.
func (e *Engine) runSubtask(ctx context.Context, sess Info, user *message.Message, task *message.SubtaskPart) error {
	now := e.cfg.Now().UnixMilli()
	model := user.Info.Model
	if task.Model != nil {
		model = *task.Model
	}
	info := message.Info{
		ID: id.Ascending(id.Message), SessionID: sess.ID, Role: message.RoleAssistant,
		Time: message.Time{Created: now}, ParentID: user.Info.ID, ModelID: model.ModelID,
		ProviderID: model.ProviderID, Mode: task.Agent, Agent: task.Agent,
		Path: message.Path{Cwd: e.cfg.Directory, Root: e.cfg.Worktree},
	}
	if err := e.sessions.PutMessage(ctx, info); err != nil {
		return err
	}
	input, _ := json.Marshal(map[string]string{
		"prompt": task.Prompt, "description": task.Description, "subagent_type": task.Agent, "command": task.Command,
	})
	part := &message.ToolPart{
		PartBase: message.PartBase{ID: id.Ascending(id.Part), SessionID: sess.ID, MessageID: info.ID},
		CallID:   id.Ascending(id.ToolOutput), Tool: TaskTool,
		State: message.ToolState{Status: message.ToolRunning, Input: input, Time: message.ToolTime{Start: now}},
	}
	if err := e.sessions.PutPart(ctx, part); err != nil {
		return err
	}

	var mu sync.Mutex // orders the tool's progress reports and the result
	res, err := e.runTaskTool(ctx, sess, user, info, part, &mu)
	mu.Lock()
	defer mu.Unlock()
	st := &part.State
	st.Time.End = e.cfg.Now().UnixMilli()
	switch {
	case err != nil:
		st.Status = message.ToolError
		st.Error = "Tool execution failed: " + err.Error()
	default:
		st.Status = message.ToolCompleted
		st.Output, st.Title, st.Metadata = res.Output, res.Title, res.Metadata
	}
	wctx := context.WithoutCancel(ctx)
	if err := e.sessions.PutPart(wctx, part); err != nil {
		return err
	}
	info.Finish = "tool-calls"
	info.Time.Completed = e.cfg.Now().UnixMilli()
	if err := e.sessions.PutMessage(wctx, info); err != nil {
		return err
	}
	// A user message always follows, whoever created the subtask, so that
	// no provider sees the task's answer followed by another assistant
	// message (some refuse that).
	follow := message.Info{
		ID: id.Ascending(id.Message), SessionID: sess.ID, Role: message.RoleUser,
		Time: message.Time{Created: e.cfg.Now().UnixMilli()}, Agent: user.Info.Agent, Model: user.Info.Model,
	}
	if err := e.sessions.PutMessage(wctx, follow); err != nil {
		return err
	}
	return e.sessions.PutPart(wctx, &message.TextPart{
		PartBase: message.PartBase{ID: id.Ascending(id.Part), SessionID: sess.ID, MessageID: follow.ID},
		Text:     subtaskSummary, Synthetic: true,
	})
}

func (e *Engine) runTaskTool(ctx context.Context, sess Info, user *message.Message, info message.Info,
	part *message.ToolPart, mu *sync.Mutex) (*tool.Result, error) {
	agent, err := e.cfg.Agents.Agent(ctx, user.Info.Agent)
	if err != nil {
		return nil, err
	}
	if e.cfg.Tools == nil {
		return nil, fmt.Errorf("the %s tool is not available", TaskTool)
	}
	_, model, err := e.cfg.Models.Model(ctx, user.Info.Model)
	if err != nil {
		return nil, err
	}
	rules := permission.Merge(agent.Permission, sess.Permission)
	// What the user typed runs: the rules that keep the model from
	// starting sub-agents ("task": "deny") filter its own calls, not this
	// one, so the tool is looked up as if they allowed it.
	lookup := append(slices.Clone(rules), permission.Rule{Permission: TaskTool, Pattern: "*", Action: permission.Allow})
	tools, err := e.cfg.Tools.Tools(ctx, ToolQuery{SessionID: sess.ID, Agent: agent, Model: model, Rules: lookup})
	if err != nil {
		return nil, err
	}
	for _, t := range tools {
		if t.ID() != TaskTool {
			continue
		}
		mu.Lock()
		part.Kind, part.Touches, part.Summary = describeCall(t, part.State.Input, e.cfg.Directory)
		mu.Unlock()
		call := &tool.Call{
			ID: part.CallID, Tool: TaskTool, Input: part.State.Input, SessionID: sess.ID, MessageID: info.ID,
			Agent: agent.Name, Dir: e.cfg.Directory, Worktree: e.cfg.Worktree,
			Asker: callAsker{p: e.cfg.Permissions, rules: rules},
			Progress: func(title string, md map[string]any) {
				mu.Lock()
				defer mu.Unlock()
				if part.State.Status == message.ToolRunning {
					part.State.Title, part.State.Metadata = title, md
					_ = e.sessions.PutPart(context.WithoutCancel(ctx), part)
				}
			},
		}
		if e.cfg.UserInitiated != nil {
			ctx = e.cfg.UserInitiated(ctx)
		}
		return e.userTaskCall(ctx, t, call)
	}
	return nil, fmt.Errorf("the %s tool is not available", TaskTool)
}

// userTaskCall runs the task tool for a subtask the user started, with the
// PreToolUse and PostToolUse (or PostToolUseFailure) hooks around it, as
// around the model's own calls.
func (e *Engine) userTaskCall(ctx context.Context, t tool.Tool, call *tool.Call) (*tool.Result, error) {
	if e.cfg.Hooks == nil {
		return runSafely(ctx, t, call)
	}
	pre := e.runHook(ctx, toolHookInput(hook.PreToolUse, call))
	switch {
	case pre.Halt:
		return nil, &HookBlockedError{Event: hook.PreToolUse, Reason: orDefault(pre.HaltReason, "a hook stopped the agent")}
	case pre.Block:
		return nil, &HookBlockedError{Event: hook.PreToolUse, Reason: pre.Reason}
	}
	if in := pre.UpdatedInput; len(in) > 0 && json.Valid(in) && in[0] == '{' {
		call.Input = in
	}
	started := time.Now()
	res, err := runSafely(ctx, t, call)
	if ctx.Err() != nil {
		return res, err
	}
	e.runHook(ctx, postToolHookInput(call, started, res, err))
	return res, err
}
