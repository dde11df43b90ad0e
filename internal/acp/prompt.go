package acp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/codeloop/codeloop/internal/client"
)

// abortWait bounds how long a cancelled prompt waits for the loop to stop
// and report its last updates.
const abortWait = 30 * time.Second

// turn is a running prompt.
type turn struct {
	cancelled atomic.Bool
	// asks is the context of the turn's permission requests to the editor;
	// endAsks cancels them (on cancel and when the turn ends).
	asks    context.Context
	endAsks context.CancelFunc
	wg      sync.WaitGroup // the permission requests in flight
	done    chan struct{}  // closed when the prompt has answered
	calls                  // the tool calls announced, and their terminals
}

// waitAnnounced waits until the editor has been told of callID and
// reports whether it has; it gives up after showWait, when ctx ends and
// when the prompt has answered.
func (t *turn) waitAnnounced(ctx context.Context, callID string) bool {
	t.calls.mu.Lock()
	ch := t.calls.channel(callID)
	t.calls.mu.Unlock()
	timer := time.NewTimer(showWait)
	defer timer.Stop()
	select {
	case <-ch:
		return true
	case <-t.done:
	case <-ctx.Done():
	case <-timer.C:
	}
	return false
}

// Prompt sends the editor's message and streams the answer as updates
// until the session's loop is idle again.
func (a *Agent) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	s, err := a.lookup(p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	parts, err := promptParts(p.Prompt)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	t := &turn{done: make(chan struct{})}
	t.asks, t.endAsks = context.WithCancel(a.ctx)
	defer t.endAsks()
	// A new prompt cancels the one running (the SDK has cancelled its
	// request already): wait for it to wind down.
	for {
		s.mu.Lock()
		prev := s.turn
		if prev == nil {
			s.turn = t
			s.mu.Unlock()
			break
		}
		s.mu.Unlock()
		select {
		case <-prev.done:
		case <-ctx.Done():
			return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
		case <-time.After(abortWait):
			return sdk.PromptResponse{}, invalidParams("the session is still answering the previous prompt: send session/cancel and try again")
		}
	}
	defer func() {
		t.endAsks()
		t.wg.Wait()
		s.mu.Lock()
		s.turn = nil
		s.mu.Unlock()
		close(t.done)
	}()

	// Subscribe before sending, so nothing of the answer is missed. The
	// stream takes every session's events: sub-agents ask permission in
	// sessions of their own.
	evs, err := s.c.Subscribe(a.ctx, client.EventFilter{})
	if err != nil {
		return sdk.PromptResponse{}, requestError(err)
	}
	defer evs.Close()
	userID, err := a.send(ctx, s, t, parts)
	if err != nil {
		return sdk.PromptResponse{}, requestError(err)
	}
	st := newStream(a, s, t, userID)
	// The prompt ends when the editor cancels it and when the agent stops.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	defer context.AfterFunc(a.ctx, stop)()
	st.pump(ctx, evs)
	if ctx.Err() != nil {
		t.cancelled.Store(true)
	}
	return st.finish()
}

// send stores the prompt: a slash command the project knows is run as
// that command, anything else is sent as a message. It returns the user
// message's id (empty for compaction, which stores none).
func (a *Agent) send(ctx context.Context, s *session, t *turn, parts []client.PartInput) (string, error) {
	agent, model := s.choices()
	files, terminal := a.files(s), a.terminal(ctx, s, t)
	if len(parts) > 0 && parts[0].Type == client.PartText && strings.HasPrefix(parts[0].Text, "/") {
		name, args, _ := strings.Cut(strings.TrimPrefix(parts[0].Text, "/"), " ")
		known := name == "compact" || name == "summarize"
		if !known {
			cmds, err := s.c.Commands(ctx)
			if err != nil {
				return "", err
			}
			known = slices.ContainsFunc(cmds, func(c client.Command) bool { return c.Name == name })
		}
		if known {
			return s.c.Command(ctx, s.id, client.CommandInput{Command: name, Arguments: strings.TrimSpace(args), Agent: agent, Model: model,
				Files: files, Terminal: terminal})
		}
	}
	return s.c.Prompt(ctx, s.id, client.PromptInput{Agent: agent, Model: model, Parts: parts, Files: files, Terminal: terminal})
}

// Cancel stops the session's running prompt: the loop is aborted and the
// permission requests still open are withdrawn; the prompt then ends with
// stopReason cancelled.
func (a *Agent) Cancel(ctx context.Context, p sdk.CancelNotification) error {
	s, err := a.lookup(p.SessionId)
	if err != nil {
		return err
	}
	return a.cancel(ctx, s)
}

func (a *Agent) cancel(ctx context.Context, s *session) error {
	s.mu.Lock()
	t := s.turn
	s.mu.Unlock()
	if t == nil {
		return nil
	}
	t.cancelled.Store(true)
	t.endAsks()
	return s.c.Abort(ctx, s.id)
}

// stream turns one prompt's events into updates.
type stream struct {
	a      *Agent
	s      *session
	t      *turn
	userID string

	roles    map[string]string // message id → role
	texts    map[string]int    // text and reasoning part id → bytes sent
	kinds    map[string]string // text and reasoning part id → part type
	tools    map[string]string // call id → last status sent
	children map[string]bool   // sessions started by the session's sub-agents
	title    string
	failure  *client.MessageError // the last error the loop reported
	ended    string               // why the turn ended, from the engine
}

func newStream(a *Agent, s *session, t *turn, userID string) *stream {
	return &stream{a: a, s: s, t: t, userID: userID, roles: map[string]string{}, texts: map[string]int{},
		kinds: map[string]string{}, tools: map[string]string{}, children: map[string]bool{}}
}

// pump handles events until the session's loop is idle. When ctx ends
// (the editor cancelled), it aborts the loop and goes on, for a bounded
// time, until the loop has stopped.
func (st *stream) pump(ctx context.Context, evs client.Events) {
	after, stop := context.WithCancel(st.a.ctx) // the wait once cancelled
	defer stop()
	wait := ctx
	for {
		ev, err := evs.Next(wait)
		if err != nil {
			if wait == ctx && ctx.Err() != nil {
				// The editor cancelled the prompt (or went away): abort,
				// then collect the loop's last updates.
				st.t.cancelled.Store(true)
				st.t.endAsks()
				_ = st.s.c.Abort(context.WithoutCancel(ctx), st.s.id)
				if st.a.ctx.Err() != nil {
					return
				}
				timer := time.AfterFunc(abortWait, stop)
				defer timer.Stop()
				wait = after
				continue
			}
			return
		}
		if st.handle(wait, ev) {
			return
		}
	}
}

// mine reports whether an event of session id concerns this prompt: its
// session or one its sub-agents started.
func (st *stream) mine(id string) bool { return id == st.s.id || st.children[id] }

// handle sends what ev means to the editor and reports whether the loop
// has ended.
func (st *stream) handle(ctx context.Context, ev client.Event) bool {
	a, s := st.a, st.s
	switch e := ev.(type) {
	case client.SessionCreatedEvent:
		if e.Info.ParentID != "" && st.mine(e.Info.ParentID) {
			st.children[e.Info.ID] = true
		}
	case client.SessionUpdatedEvent:
		if e.Info.ID == s.id && e.Info.Title != "" && e.Info.Title != st.title {
			if st.title != "" || !strings.HasPrefix(e.Info.Title, "New session") {
				title := e.Info.Title
				st.send(ctx, sdk.SessionUpdate{SessionInfoUpdate: &sdk.SessionSessionInfoUpdate{SessionUpdate: "session_info_update", Title: &title}})
			}
			st.title = e.Info.Title
		}
	case client.MessageUpdatedEvent:
		if e.Info.SessionID == s.id {
			st.roles[e.Info.ID] = e.Info.Role
		}
	case client.PartUpdatedEvent:
		if e.Part.SessionID == s.id && st.roles[e.Part.MessageID] == client.RoleAssistant {
			st.part(ctx, e.Part)
		}
	case client.PartDeltaEvent:
		if e.SessionID == s.id && e.Field == "text" {
			st.delta(ctx, e.PartID, e.Delta)
		}
	case client.MessageRemovedEvent:
		if e.SessionID == s.id {
			st.removed(ctx, MethodMessageRemoved, removal{SessionID: s.id, MessageID: e.MessageID})
		}
	case client.PartRemovedEvent:
		if e.SessionID == s.id {
			st.removed(ctx, MethodPartRemoved, removal{SessionID: s.id, MessageID: e.MessageID, PartID: e.PartID})
		}
	case client.TodoUpdatedEvent:
		if e.SessionID == s.id {
			st.send(ctx, planUpdate(e.Todos))
		}
	case client.PermissionAskedEvent:
		if st.mine(e.SessionID) {
			a.ask(st.t, s, e.PermissionRequest)
		}
	case client.QuestionAskedEvent:
		if st.mine(e.SessionID) {
			a.answerQuestion(ctx, s, e.QuestionRequest)
		}
	case client.EventsDroppedEvent:
		st.catchUp(ctx)
	case client.SessionErrorEvent:
		if e.SessionID == s.id {
			st.failure = e.Error
			// A loop that failed before it started never turns idle.
			status, err := s.c.Status(ctx)
			if err == nil {
				if _, busy := status[s.id]; !busy {
					return true
				}
			}
		}
	case client.TurnEndedEvent:
		if e.SessionID == s.id {
			st.ended = e.Reason
		}
	case client.SessionStatusEvent:
		if e.SessionID == s.id && e.Status.Type == client.StatusIdle {
			return true
		}
	}
	return false
}

// The extension notifications that tell the editor what a revert took
// back, once the next prompt makes it final: ACP's session updates only
// add to a conversation.
const (
	MethodMessageRemoved = "_codeloop/message_removed"
	MethodPartRemoved    = "_codeloop/part_removed"
)

// removal is the payload of MethodMessageRemoved and MethodPartRemoved.
type removal struct {
	SessionID string `json:"sessionId"`
	MessageID string `json:"messageId"`
	PartID    string `json:"partId,omitempty"`
}

// removed tells the editor a message or part was taken back; an editor
// that does not know the method ignores it.
func (st *stream) removed(ctx context.Context, method string, r removal) {
	if err := st.a.conn.NotifyExtension(context.WithoutCancel(ctx), method, r); err != nil {
		st.a.opts.Log.Warn("acp: sending a removal", "err", err)
	}
}

// send sends an update, logging a failure: the editor may have gone.
func (st *stream) send(ctx context.Context, u sdk.SessionUpdate) {
	if err := st.a.update(context.WithoutCancel(ctx), st.s.id, u); err != nil {
		st.a.opts.Log.Warn("acp: sending an update", "err", err)
	}
}

// part sends an assistant part's new state.
func (st *stream) part(ctx context.Context, p client.Part) {
	switch p.Type {
	case client.PartText, client.PartReasoning:
		if p.Synthetic || p.Ignored {
			return
		}
		st.kinds[p.ID] = p.Type
		if sent := st.texts[p.ID]; len(p.Text) > sent {
			st.texts[p.ID] = len(p.Text)
			st.send(ctx, textUpdate(p.Type, p.Text[sent:]))
		}
	case client.PartTool:
		status := ""
		if p.State != nil {
			status = p.State.Status
		}
		last, started := st.tools[p.CallID]
		switch {
		case !started:
			st.send(ctx, st.t.withTerminal(toolCallStart(p), p))
			st.t.announce(p.CallID)
		case last != status:
			st.send(ctx, st.t.withTerminal(toolCallUpdate(p), p))
		default:
			return
		}
		st.tools[p.CallID] = status
	}
}

// delta sends streamed text of a part already announced.
func (st *stream) delta(ctx context.Context, partID, text string) {
	kind, ok := st.kinds[partID]
	if !ok || text == "" {
		return
	}
	st.texts[partID] += len(text)
	st.send(ctx, textUpdate(kind, text))
}

func textUpdate(kind, text string) sdk.SessionUpdate {
	if kind == client.PartReasoning {
		return sdk.UpdateAgentThoughtText(text)
	}
	return sdk.UpdateAgentMessageText(text)
}

// catchUp reads the answer as stored and sends what the editor has not
// seen: text whose deltas were dropped, tool calls whose last state it
// missed.
func (st *stream) catchUp(ctx context.Context) []client.Message {
	msgs, err := st.s.c.Messages(context.WithoutCancel(ctx), st.s.id, client.MessagesOptions{Limit: 50})
	if err != nil {
		st.a.opts.Log.Warn("acp: reading the answer", "err", err)
		return nil
	}
	for _, m := range msgs {
		// Only the messages of this turn: their records are never dropped.
		if st.roles[m.Info.ID] != client.RoleAssistant {
			continue
		}
		for _, p := range m.Parts {
			st.part(ctx, p)
		}
	}
	return msgs
}

// finish sends what is left of the answer and says why the turn ended.
func (st *stream) finish() (sdk.PromptResponse, error) {
	ctx := st.a.ctx
	msgs := st.catchUp(ctx)
	if st.t.cancelled.Load() {
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	var last *client.Message
	for i := range msgs {
		m := &msgs[i]
		if st.roles[m.Info.ID] == client.RoleAssistant && !m.Info.Summary {
			last = m
		}
	}
	failure := st.failure
	if last != nil && last.Info.Error != nil {
		failure = last.Info.Error
	}
	if failure != nil {
		switch failure.Name {
		case "MessageAbortedError":
			return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
		case "ContentFilterError":
			return sdk.PromptResponse{StopReason: sdk.StopReasonRefusal}, nil
		}
		if last == nil || last.Info.Error != nil {
			return sdk.PromptResponse{}, &sdk.RequestError{Code: -32603, Message: failure.Error(), Data: map[string]any{"name": failure.Name}}
		}
	}
	switch st.ended {
	case client.TurnLength:
		return sdk.PromptResponse{StopReason: sdk.StopReasonMaxTokens}, nil
	case client.TurnContentFilter:
		return sdk.PromptResponse{StopReason: sdk.StopReasonRefusal}, nil
	case client.TurnMaxSteps:
		return sdk.PromptResponse{StopReason: sdk.StopReasonMaxTurnRequests}, nil
	case client.TurnAborted:
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
}

// planUpdate is the session's todo list as the editor's plan; cancelled
// items are left out.
func planUpdate(todos []client.Todo) sdk.SessionUpdate {
	entries := []sdk.PlanEntry{}
	for _, t := range todos {
		status := sdk.PlanEntryStatusPending
		switch t.Status {
		case "in_progress":
			status = sdk.PlanEntryStatusInProgress
		case "completed":
			status = sdk.PlanEntryStatusCompleted
		case "cancelled":
			continue
		}
		priority := sdk.PlanEntryPriorityMedium
		switch t.Priority {
		case "high":
			priority = sdk.PlanEntryPriorityHigh
		case "low":
			priority = sdk.PlanEntryPriorityLow
		}
		entries = append(entries, sdk.PlanEntry{Content: t.Content, Priority: priority, Status: status})
	}
	return sdk.SessionUpdate{Plan: &sdk.SessionUpdatePlan{SessionUpdate: "plan", Entries: entries}}
}

// questionNote answers the question tool, which the protocol has no way
// to show.
const questionNote = "The user works in an editor that cannot show questions. Go on with your best judgement and say what you assumed."

func (a *Agent) answerQuestion(ctx context.Context, s *session, q client.QuestionRequest) {
	answers := make([][]string, len(q.Questions))
	for i := range answers {
		answers[i] = []string{questionNote}
	}
	if err := s.c.ReplyQuestion(context.WithoutCancel(ctx), q.ID, answers); err != nil && !errors.Is(err, client.ErrNotFound) {
		a.opts.Log.Warn("acp: answering a question", "err", fmt.Errorf("question %s: %w", q.ID, err))
	}
}
