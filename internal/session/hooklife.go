package session

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/hook"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/tool"
)

// sessionEndBudget bounds how long closing the engine waits for
// SessionEnd hooks.
const sessionEndBudget = 5 * time.Second

// hookState is what the engine keeps for the hooks of a session's life:
// the sessions whose SessionStart hooks ran in this process, which get
// SessionEnd hooks when the engine closes, and the Notification hooks'
// subscription to permission requests.
type hookState struct {
	mu         sync.Mutex
	started    map[string]bool
	stopNotify func()
}

// runHook runs the hooks of in.Event, if any are defined.
func (e *Engine) runHook(ctx context.Context, in hook.Input) hook.Result {
	h := e.cfg.Hooks
	if h == nil || !h.Has(in.Event) {
		return hook.Result{}
	}
	return h.Run(ctx, in)
}

// toolHookInput is the input of a tool event's hooks for call.
func toolHookInput(event string, call *tool.Call) hook.Input {
	return hook.Input{Event: event, SessionID: call.SessionID, Cwd: call.Dir, Tool: call.Tool, ToolInput: call.Input,
		ToolUseID: call.ID}
}

// postToolHookInput is the input of the PostToolUse hooks of a completed
// call, or of the PostToolUseFailure hooks of a failed one.
func postToolHookInput(call *tool.Call, started time.Time, res *tool.Result, err error) hook.Input {
	in := toolHookInput(hook.PostToolUse, call)
	in.Duration = time.Since(started)
	if err != nil {
		in.Event, in.Error = hook.PostToolUseFailure, err.Error()
	} else if res != nil {
		in.ToolResponse = hook.ToolResponse(call.Tool, call.Input, res.Output, res.Title, res.Metadata)
	}
	return in
}

// sessionStartHooks runs the SessionStart hooks the first time this
// process sees the session ("startup" for a new session, "resume"
// otherwise) and returns the context they add.
func (e *Engine) sessionStartHooks(ctx context.Context, sessionID string) []string {
	e.hooks.mu.Lock()
	seen := e.hooks.started[sessionID]
	e.hooks.started[sessionID] = true
	e.hooks.mu.Unlock()
	if seen || !e.cfg.Hooks.Has(hook.SessionStart) {
		return nil
	}
	source := "startup"
	if msgs, err := e.sessions.Messages(ctx, sessionID); err == nil && len(msgs) > 0 {
		source = "resume"
	}
	return e.cfg.Hooks.Run(ctx, hook.Input{Event: hook.SessionStart, SessionID: sessionID, Source: source}).Context
}

// closeHooks stops the Notification hooks and runs the SessionEnd hooks of
// the sessions started in this process, once.
func (e *Engine) closeHooks() {
	e.hooks.mu.Lock()
	stop := e.hooks.stopNotify
	e.hooks.stopNotify = nil
	ids := make([]string, 0, len(e.hooks.started))
	for id := range e.hooks.started {
		ids = append(ids, id)
	}
	clear(e.hooks.started)
	e.hooks.mu.Unlock()
	if stop != nil {
		stop()
	}
	if len(ids) == 0 || e.cfg.Hooks == nil || !e.cfg.Hooks.Has(hook.SessionEnd) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), sessionEndBudget)
	defer cancel()
	slices.Sort(ids)
	for _, id := range ids {
		e.cfg.Hooks.Run(ctx, hook.Input{Event: hook.SessionEnd, SessionID: id, Reason: "other"})
	}
}

// notifyHooks runs the Notification hooks whenever a permission is asked,
// until the returned function is called.
func (e *Engine) notifyHooks() (stop func()) {
	h := e.cfg.Hooks
	if h == nil || e.cfg.Bus == nil || !h.Has(hook.Notification) {
		return nil
	}
	sub := e.cfg.Bus.Subscribe(bus.Filter{Types: []string{bus.PermissionAsked}}, 64)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-ctx.Done():
				return
			case ev := <-sub.C:
				req, ok := ev.Properties.(permission.Request)
				if !ok {
					continue
				}
				msg := fmt.Sprintf("codeloop needs your permission to use %s", req.Permission)
				if len(req.Patterns) > 0 {
					msg += " (" + strings.Join(req.Patterns, ", ") + ")"
				}
				h.Run(ctx, hook.Input{Event: hook.Notification, SessionID: req.SessionID, Message: msg,
					Title: "Permission needed", NotificationType: "permission_prompt"})
			}
		}
	}()
	return func() {
		cancel()
		sub.Close()
		<-done
	}
}
