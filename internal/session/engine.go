package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/id"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/tool"
)

// Engine runs sessions: one loop per busy session, in a goroutine the engine
// owns. A prompt sent while a session's loop runs is stored and taken up by
// that loop; no second loop starts. Close stops every loop and waits for it.
type Engine struct {
	cfg      Config
	sessions *Sessions

	ctx      context.Context // the loops' lifetime
	cancel   context.CancelFunc
	bg       context.Context // background work (titles), which Close lets finish
	bgCancel context.CancelFunc
	wg       sync.WaitGroup // loops, tool calls and title requests

	mu      sync.Mutex
	runners map[string]*runner
	shells  map[string]*shellRun // the user's shell commands running
	status  map[string]Status
	titled  map[string]bool // sessions whose title was asked for

	hooks hookState
}

// runner is the loop of one session.
type runner struct {
	sessionID string
	ctx       context.Context
	cancel    context.CancelFunc
	again     bool            // a prompt arrived; look once more before ending
	prev      *runner         // a cancelled loop of the session still finishing
	shell     <-chan struct{} // a shell command of the user's to wait for first
	done      chan struct{}   // closed when the loop has ended and saved everything
	err       error           // why the loop failed, if it did
	// files is where the loop's file tools read and write text: the
	// newest prompt's file system, nil for the disk. Under Engine.mu.
	files tool.FileSystem
	// terminal is where bash runs commands: the newest prompt's
	// terminal, nil for codeloop's shell. Under Engine.mu.
	terminal tool.Terminal
}

// New returns an engine over cfg.
func New(cfg Config) (*Engine, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	bg, bgCancel := context.WithCancel(context.Background())
	e := &Engine{
		cfg: cfg, sessions: cfg.Sessions, ctx: ctx, cancel: cancel, bg: bg, bgCancel: bgCancel,
		runners: map[string]*runner{}, shells: map[string]*shellRun{}, status: map[string]Status{}, titled: map[string]bool{},
		hooks: hookState{started: map[string]bool{}},
	}
	e.hooks.stopNotify = e.notifyHooks()
	return e, nil
}

// Sessions returns the session service the engine writes through.
func (e *Engine) Sessions() *Sessions { return e.sessions }

// closeGrace is how long Close lets background work (a title being
// written) finish before cancelling it.
const closeGrace = 3 * time.Second

// Close aborts every running loop and waits until all have saved their
// state and every goroutine of the engine has ended. Background work gets
// a short grace period first. The SessionEnd hooks of the sessions started
// in this process run first.
func (e *Engine) Close() {
	e.closeHooks()
	e.cancel()
	done := make(chan struct{})
	go func() {
		e.wg.Wait()
		close(done)
	}()
	t := time.NewTimer(closeGrace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		e.bgCancel()
		// Loops have saved their state by now; what is left is a tool
		// that ignores its cancellation. It must not keep the process
		// from exiting.
		t.Reset(closeGrace)
		select {
		case <-done:
		case <-t.C:
			e.cfg.Log.Warn("closing with tool calls still running")
		}
	}
	e.bgCancel()
}

// PromptInput is a message from the user.
type PromptInput struct {
	SessionID string
	Agent     string            // empty: the default agent
	Model     *message.ModelRef // nil: the agent's, the session's or the default model
	System    string            // extra system text for this message
	Tools     map[string]bool   // tools switched off (false) for this message
	Parts     []message.Part    // ids are assigned
	NoReply   bool              // store the message without running the loop
	// Allow are rules that hold while this message is answered only (a
	// command's allowed tools); the agent's and the session's deny rules
	// still win.
	Allow permission.Ruleset
	// Files, when set, is where the file tools read and write text while
	// the loop answers (an editor's buffers); nil means the disk.
	Files tool.FileSystem
	// Terminal, when set, is where bash runs commands while the loop
	// answers (an editor's terminals); nil means codeloop's shell.
	Terminal tool.Terminal
}

// TextPart returns a text part for a PromptInput.
func TextPart(text string) message.Part { return &message.TextPart{Text: text} }

// Send stores the user's message and makes sure the session's loop runs. It
// returns the stored message without waiting for the answer.
func (e *Engine) Send(ctx context.Context, in PromptInput) (message.Message, error) {
	in, err := e.promptHooks(ctx, in)
	if err != nil {
		return message.Message{}, err
	}
	m, err := e.createUserMessage(ctx, in)
	if err != nil {
		return message.Message{}, err
	}
	if !in.NoReply {
		e.start(in.SessionID, in.Files, in.Terminal)
	}
	return m, nil
}

// Prompt sends the user's message and waits until the session's loop has
// answered it. It returns the last assistant message.
func (e *Engine) Prompt(ctx context.Context, in PromptInput) (message.Message, error) {
	if _, err := e.Send(ctx, in); err != nil {
		return message.Message{}, err
	}
	return e.Wait(ctx, in.SessionID)
}

// Wait waits until the session is idle and returns its last assistant
// message. The error is the loop's own failure (a missing model, a store
// error); a failed model request is recorded on the message instead.
func (e *Engine) Wait(ctx context.Context, sessionID string) (message.Message, error) {
	for {
		e.mu.Lock()
		r := e.runners[sessionID]
		e.mu.Unlock()
		if r == nil {
			break
		}
		select {
		case <-r.done:
		case <-ctx.Done():
			return message.Message{}, ctx.Err()
		}
		e.mu.Lock()
		next := e.runners[sessionID]
		e.mu.Unlock()
		if next == nil {
			if r.err != nil {
				return message.Message{}, r.err
			}
			break
		}
	}
	return e.lastAssistant(ctx, sessionID)
}

func (e *Engine) lastAssistant(ctx context.Context, sessionID string) (message.Message, error) {
	v, err := e.sessions.View(ctx, sessionID) // holds the last summary, so the last answer too
	if err != nil {
		return message.Message{}, err
	}
	msgs := v.Stored
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Info.Role == message.RoleAssistant {
			return e.sessions.Message(ctx, msgs[i].Info.ID) // a copy the caller owns
		}
	}
	return message.Message{}, fmt.Errorf("session %s has no answer", sessionID)
}

// Cancel aborts the session's loop, if one runs. The loop saves what it has
// received and ends; Wait returns once it has.
func (e *Engine) Cancel(sessionID string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if r := e.runners[sessionID]; r != nil {
		r.cancel()
	}
	if sh := e.shells[sessionID]; sh != nil {
		sh.cancel()
	}
}

// Busy reports whether the session's loop, or a shell command of the
// user's, runs.
func (e *Engine) Busy(sessionID string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.runners[sessionID] != nil || e.shells[sessionID] != nil
}

// Status returns the session's status.
func (e *Engine) Status(sessionID string) Status {
	e.mu.Lock()
	defer e.mu.Unlock()
	if s, ok := e.status[sessionID]; ok {
		return s
	}
	return Status{Type: StatusIdle}
}

func (e *Engine) setStatus(sessionID string, s Status) {
	e.mu.Lock()
	old, had := e.status[sessionID]
	if s.Type == StatusIdle {
		delete(e.status, sessionID)
	} else {
		e.status[sessionID] = s
	}
	e.mu.Unlock()
	if had && old == s || !had && s.Type == StatusIdle {
		return
	}
	if e.cfg.Bus != nil {
		e.cfg.Bus.Publish(e.ctx, bus.Event{Type: bus.SessionStatus, SessionID: sessionID,
			Properties: StatusEvent{SessionID: sessionID, Status: s}})
		if s.Type == StatusIdle {
			e.cfg.Bus.Publish(e.ctx, bus.Event{Type: bus.SessionIdle, SessionID: sessionID,
				Properties: IdleEvent{SessionID: sessionID}})
		}
	}
}

func (e *Engine) publishError(sessionID string, err *message.Error) {
	if e.cfg.Bus != nil {
		e.cfg.Bus.Publish(e.ctx, bus.Event{Type: bus.SessionError, SessionID: sessionID,
			Properties: ErrorEvent{SessionID: sessionID, Error: err}})
	}
}

// start makes sure a loop runs for the session and will see the newest
// message; files is the file system its file tools use from now on, and
// terminal where bash runs commands.
func (e *Engine) start(sessionID string, files tool.FileSystem, terminal tool.Terminal) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ctx.Err() != nil {
		return
	}
	prev := e.runners[sessionID]
	if prev != nil && prev.ctx.Err() == nil {
		prev.again = true
		prev.files = files
		prev.terminal = terminal
		return
	}
	r := &runner{sessionID: sessionID, prev: prev, done: make(chan struct{}), files: files, terminal: terminal}
	if sh := e.shells[sessionID]; sh != nil {
		r.shell = sh.done // the prompt is answered once the command ends
	}
	r.ctx, r.cancel = context.WithCancel(e.ctx)
	e.runners[sessionID] = r
	e.wg.Add(1)
	go e.run(r)
}

// fileSystem is where the file tools of the session's running loop read
// and write text, or nil for the disk.
func (e *Engine) fileSystem(sessionID string) tool.FileSystem {
	e.mu.Lock()
	defer e.mu.Unlock()
	if r := e.runners[sessionID]; r != nil {
		return r.files
	}
	return nil
}

// terminal is where bash runs the commands of the session's running
// loop, or nil for codeloop's shell.
func (e *Engine) terminal(sessionID string) tool.Terminal {
	e.mu.Lock()
	defer e.mu.Unlock()
	if r := e.runners[sessionID]; r != nil {
		return r.terminal
	}
	return nil
}

// run is a session's loop goroutine.
func (e *Engine) run(r *runner) {
	defer e.wg.Done()
	if r.prev != nil {
		<-r.prev.done
	}
	if r.shell != nil {
		select {
		case <-r.shell:
		case <-r.ctx.Done():
		}
	}
	// One process at a time runs a session's loop. Another one answering
	// it will see the message this process stored; once it is done, this
	// loop finds the message answered, or answers it.
	lock, lockErr := e.sessions.lockLoop(r.ctx, r.sessionID, func(pid int) {
		e.setStatus(r.sessionID, Status{Type: StatusBusy, Message: waitingMessage(pid)})
	})
	st := &loopState{}
	for {
		err := lockErr
		if err == nil {
			err = e.loop(r.ctx, r.sessionID, st)
		}
		if errors.Is(err, context.Canceled) && r.ctx.Err() != nil {
			err = nil // an abort while waiting for the lock
		}
		if err == nil && r.ctx.Err() == nil {
			if perr := e.prune(r.ctx, r.sessionID); perr != nil {
				e.cfg.Log.Warn("pruning old tool output", "session", r.sessionID, "err", perr)
			}
		}
		e.mu.Lock()
		if err == nil && r.again && r.ctx.Err() == nil {
			r.again = false
			e.mu.Unlock()
			continue
		}
		r.err = err
		last := e.runners[r.sessionID] == r
		if last {
			delete(e.runners, r.sessionID)
		}
		e.mu.Unlock()
		// Released before the session is said to be idle, so whoever acts
		// on that (a revert) finds the lock free.
		lock.Release()
		if err != nil {
			e.cfg.Log.Error("session loop failed", "session", r.sessionID, "err", err)
			e.publishError(r.sessionID, message.FromError(err))
		}
		if e.cfg.Bus != nil {
			ev := st.turnEnd(r.sessionID, err, r.ctx.Err() != nil)
			e.cfg.Bus.Publish(e.ctx, bus.Event{Type: bus.TurnEnded, SessionID: r.sessionID, Properties: ev})
		}
		if last {
			e.setStatus(r.sessionID, Status{Type: StatusIdle})
		}
		r.cancel()
		close(r.done)
		return
	}
}

// waitingMessage is the status message while another process answers the
// session.
func waitingMessage(pid int) string {
	who := "another codeloop process"
	if pid > 0 {
		who = fmt.Sprintf("codeloop process %d", pid)
	}
	return who + " is answering this session; your message is queued and answered when it is done"
}

// createUserMessage stores the user's message with its parts.
func (e *Engine) createUserMessage(ctx context.Context, in PromptInput) (message.Message, error) {
	if err := e.cleanupRevert(ctx, in.SessionID); err != nil {
		return message.Message{}, err
	}
	sess, err := e.sessions.Get(ctx, in.SessionID)
	if err != nil {
		return message.Message{}, err
	}
	agent, err := e.cfg.Agents.Agent(ctx, in.Agent)
	if err != nil {
		return message.Message{}, err
	}
	model, err := e.pickModel(ctx, in, agent, sess)
	if err != nil {
		return message.Message{}, err
	}
	info := message.Info{
		ID: id.Ascending(id.Message), SessionID: in.SessionID, Role: message.RoleUser,
		Time: message.Time{Created: e.cfg.Now().UnixMilli()}, Agent: agent.Name, Model: model,
	}
	if x := (message.UserExtra{System: in.System, Tools: in.Tools, Permission: turnRules(in.Allow)}); !x.IsZero() {
		info.Extra = &x
	}
	m := message.Message{Info: info}
	for _, p := range e.attach(ctx, sess, info, in.Parts, in.Files) {
		b := p.Base()
		b.ID = id.Ascending(id.Part)
		b.SessionID = in.SessionID
		b.MessageID = info.ID
		m.Parts = append(m.Parts, p)
	}
	if err := e.sessions.PutMessage(ctx, info); err != nil {
		return message.Message{}, err
	}
	for _, p := range m.Parts {
		if err := e.sessions.PutPart(ctx, p); err != nil {
			return message.Message{}, err
		}
	}
	if sess.Agent != agent.Name || sess.Model == nil || sess.Model.ID != model.ModelID || sess.Model.ProviderID != model.ProviderID {
		_, err := e.sessions.Update(ctx, in.SessionID, func(s *Info) {
			s.Agent = agent.Name
			s.Model = &ModelInfo{ID: model.ModelID, ProviderID: model.ProviderID, Variant: model.Variant}
		})
		if err != nil {
			return message.Message{}, err
		}
	}
	return m, nil
}

// ChooseModel returns the model a new message would be answered with, as
// Send chooses it: explicit, else the agent's (agentName empty: the
// default agent), else the session's last (sess nil: a new session), else
// the default. Front ends ask it to fail before they store anything.
func (e *Engine) ChooseModel(ctx context.Context, explicit *message.ModelRef, agentName string, sess *Info) (message.ModelRef, error) {
	agent, err := e.cfg.Agents.Agent(ctx, agentName)
	if err != nil {
		return message.ModelRef{}, err
	}
	var s Info
	if sess != nil {
		s = *sess
	}
	return e.pickModel(ctx, PromptInput{Model: explicit}, agent, s)
}

// pickModel chooses the model of a new message: the prompt's, the agent's,
// the session's last, or the default.
func (e *Engine) pickModel(ctx context.Context, in PromptInput, agent *Agent, sess Info) (message.ModelRef, error) {
	switch {
	case in.Model != nil:
		return *in.Model, nil
	case agent.Model != nil:
		return *agent.Model, nil
	case sess.Model != nil:
		return message.ModelRef{ProviderID: sess.Model.ProviderID, ModelID: sess.Model.ID, Variant: sess.Model.Variant}, nil
	}
	return e.cfg.Models.Default(ctx)
}

// turnRules encodes a prompt's rules of its own turn for the message.
func turnRules(rules permission.Ruleset) json.RawMessage {
	if len(rules) == 0 {
		return nil
	}
	b, err := json.Marshal(rules)
	if err != nil {
		return nil
	}
	return b
}

// rulesOfTurn decodes the rules a user message holds for its own turn.
func rulesOfTurn(info message.Info) permission.Ruleset {
	raw := info.Permission()
	if len(raw) == 0 {
		return nil
	}
	var rs permission.Ruleset
	if json.Unmarshal(raw, &rs) != nil {
		return nil
	}
	return rs
}
