package session

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/codeloop/codeloop/internal/id"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/sandbox"
	"github.com/codeloop/codeloop/internal/tool"
)

// InvalidTool is the id calls are recorded under when the model names a
// tool that does not exist or sends arguments that are not a JSON object.
const InvalidTool = "invalid"

func (p *processor) newToolPartLocked(callID, name string) *message.ToolPart {
	part := &message.ToolPart{
		PartBase: message.PartBase{ID: id.Ascending(id.Part)},
		CallID:   callID,
		Tool:     name,
		State:    message.ToolState{Status: message.ToolPending},
	}
	if t := p.tools[name]; t != nil {
		part.Kind = string(tool.Describe(t).Kind)
	}
	p.calls[callID] = part
	p.order = append(p.order, part)
	p.received = true
	p.w.add(part)
	return part
}

func (p *processor) toolPending(callID, name string) {
	p.w.mu.Lock()
	if p.calls[callID] == nil {
		p.newToolPartLocked(callID, name)
	}
	p.w.mu.Unlock()
	p.w.flush(true)
}

func (p *processor) toolInputDelta(callID, delta string) {
	p.w.mu.Lock()
	defer p.w.mu.Unlock()
	part := p.calls[callID]
	if part == nil || part.State.Status != message.ToolPending {
		return
	}
	part.State.Raw += delta
	p.w.touch(part)
}

// resolveTool finds the tool the model named, repairing the case of its
// name, and checks that the arguments are a JSON object. It returns the
// reason the call is invalid, or "".
func (p *processor) resolveTool(name, input string) (tool.Tool, string, string) {
	t, ok := p.tools[name]
	if !ok {
		if lt, lok := p.tools[strings.ToLower(name)]; lok {
			t, name, ok = lt, strings.ToLower(name), true
		}
	}
	if !ok || name == InvalidTool {
		names := make([]string, 0, len(p.tools))
		for n := range p.tools {
			if n != InvalidTool {
				names = append(names, n)
			}
		}
		slices.Sort(names)
		return nil, name, fmt.Sprintf("the model called the tool %q, which is not available; the available tools are: %s",
			name, strings.Join(names, ", "))
	}
	trimmed := bytes.TrimSpace([]byte(input))
	if len(trimmed) == 0 {
		return t, name, ""
	}
	var obj map[string]any
	if err := json.Unmarshal(trimmed, &obj); err != nil || obj == nil {
		why := "they are not a JSON object"
		if err != nil {
			why = "they are not valid JSON: " + err.Error()
		}
		return nil, name, fmt.Sprintf("the arguments of the %s tool could not be read: %s", name, why)
	}
	return t, name, ""
}

// toolCall starts a call whose arguments are complete.
func (p *processor) toolCall(ctx context.Context, callID, name, input string) {
	p.w.mu.Lock()
	part := p.calls[callID]
	if part == nil {
		part = p.newToolPartLocked(callID, name)
	}
	if part.State.Status != message.ToolPending {
		p.w.mu.Unlock()
		return // a provider repeated the call
	}
	st := &part.State
	st.Raw = ""
	st.Status = message.ToolRunning
	st.Time.Start = p.now()
	st.Input = message.ObjectInput([]byte(input))
	t, resolved, invalid := p.resolveTool(name, input)
	part.Tool = resolved
	if invalid != "" {
		in, _ := json.Marshal(map[string]string{"tool": name, "error": invalid})
		part.Tool = InvalidTool
		st.Input = in
		t = p.tools[InvalidTool]
		if t == nil {
			st.Status = message.ToolCompleted
			st.Title = "Invalid tool call"
			st.Output = "The arguments provided to the tool are invalid: " + invalid
			st.Time.End = p.now()
		}
	}
	if t != nil {
		part.Kind, part.Touches, part.Summary = describeCall(t, st.Input, p.e.cfg.Directory)
	}
	if p.lastStep && st.Status == message.ToolRunning {
		st.Status = message.ToolError
		st.Error = "no more tool calls are allowed: this is the last step, answer with text only"
		st.Time.End = p.now()
	}
	p.w.touch(part)
	if st.Status != message.ToolRunning {
		p.w.mu.Unlock()
		p.w.flush(true)
		return
	}
	doom := p.doomLoopLocked(part)
	callInput := st.Input
	p.toolsDone.Add(1)
	p.e.wg.Add(1)
	p.w.mu.Unlock()
	p.w.flush(true)
	if p.w.failure() != nil {
		// The call could not be recorded: running it would change the
		// project with nothing saved to say so.
		p.toolsDone.Done()
		p.e.wg.Done()
		return
	}
	go p.runTool(ctx, part, t, callInput, doom)
}

// runTool executes one call and records its result.
func (p *processor) runTool(ctx context.Context, part *message.ToolPart, t tool.Tool, input json.RawMessage, doom bool) {
	defer p.e.wg.Done()
	defer p.toolsDone.Done()
	info := p.w.info
	call := &tool.Call{
		ID: part.CallID, Tool: part.Tool, Input: input,
		SessionID: info.SessionID, MessageID: info.ID, Agent: p.agent.Name,
		Dir: p.e.cfg.Directory, Worktree: p.e.cfg.Worktree,
		Asker:       callAsker{p: p.e.cfg.Permissions, rules: p.rules},
		Progress:    func(title string, md map[string]any) { p.progress(part, title, md) },
		CanDelegate: p.tools[TaskTool] != nil,
		Messages:    func() []message.Message { return p.msgs },
		Files:       p.e.fileSystem(info.SessionID),
		Terminal:    p.e.terminal(info.SessionID),
		Sandbox:     sandbox.Mode(p.sandbox),
	}
	var (
		res     *tool.Result
		err     error
		started = time.Now()
		pre     string // what PreToolUse hooks add for the model
	)
	pre, err = p.preToolHooks(ctx, part, call)
	if err == nil && doom {
		err = call.Ask(ctx, permission.Request{
			Permission: "doom_loop", Patterns: []string{part.Tool}, Always: []string{part.Tool},
			Metadata: map[string]any{"tool": part.Tool, "input": json.RawMessage(call.Input)},
		})
	}
	if err == nil {
		p.beforeTool(ctx, t)
		res, err = runSafely(ctx, t, call)
	}
	res, err = p.postToolHooks(ctx, part, call, started, res, err, pre)

	p.w.mu.Lock()
	st := &part.State
	if st.Status != message.ToolRunning {
		p.w.mu.Unlock()
		return // already ended by an abort
	}
	st.Time.End = p.now()
	if ctx.Err() != nil {
		// Aborted: the call is an interrupted error whatever the tool
		// returned, but what it returned is kept.
		if res != nil {
			if st.Metadata == nil {
				st.Metadata = map[string]any{}
			}
			for k, v := range res.Metadata {
				st.Metadata[k] = v
			}
			if res.Output != "" {
				st.Metadata["output"] = res.Output
			}
		}
		p.interruptLocked(part, "Tool execution aborted")
	} else if err != nil {
		st.Status = message.ToolError
		st.Error = err.Error()
		if isRejected(err) {
			p.blocked = true
		}
	} else {
		st.Status = message.ToolCompleted
		st.Output = res.Output
		st.Title = res.Title
		if res.Metadata != nil {
			st.Metadata = res.Metadata
		}
		for _, a := range res.Attachments {
			st.Attachments = append(st.Attachments, &message.FilePart{
				PartBase: message.PartBase{ID: id.Ascending(id.Part), SessionID: info.SessionID, MessageID: info.ID},
				Mime:     a.Mime, Filename: a.Filename, URL: a.URL,
			})
		}
	}
	p.w.touch(part)
	p.w.mu.Unlock()
	p.w.flush(true)
}

// runSafely runs a tool, turning a panic into an error.
func runSafely(ctx context.Context, t tool.Tool, call *tool.Call) (res *tool.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the %s tool failed unexpectedly: %v", call.Tool, r)
		}
	}()
	res, err = t.Run(ctx, call)
	if err == nil && res == nil {
		res = &tool.Result{}
	}
	return res, err
}

// progress records a running call's live title and metadata.
func (p *processor) progress(part *message.ToolPart, title string, md map[string]any) {
	p.w.mu.Lock()
	if part.State.Status != message.ToolRunning {
		p.w.mu.Unlock()
		return
	}
	if title != "" {
		part.State.Title = title
	}
	if md != nil {
		part.State.Metadata = md
	}
	p.w.touch(part)
	p.w.schedule()
	p.w.mu.Unlock()
}

// callAsker checks a call's permission requests against the rules in force.
type callAsker struct {
	p     Permissions
	rules permission.Ruleset
}

func (a callAsker) Ask(ctx context.Context, req permission.Request) error {
	return a.p.Ask(ctx, a.rules, req)
}

// describeCall is what a call's tool says it is, touches and works on, as
// recorded on its part for the front ends.
func describeCall(t tool.Tool, input json.RawMessage, dir string) (string, []message.ToolTouch, string) {
	var touches []message.ToolTouch
	for _, f := range tool.Touches(t, input, dir) {
		touches = append(touches, message.ToolTouch{Path: f.Path, Line: f.Line, Write: f.Write})
	}
	return string(tool.Describe(t).Kind), touches, tool.Summary(t, input, dir)
}
