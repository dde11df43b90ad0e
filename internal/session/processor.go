package session

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codeloop/codeloop/internal/id"
	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/tool"
)

// outcome is what the loop does after a step.
type outcome int

const (
	outContinue outcome = iota // run another step
	outStop                    // end the loop
	outCompact                 // summarise the history, then go on
	outOverflow                // the request did not fit: summarise, then replay the prompt
)

// processor runs one model step: it streams the request, turns the events
// into parts of the assistant message, runs the tool calls as soon as their
// arguments are complete, and records usage, errors and aborts.
type processor struct {
	e        *Engine
	provider llm.Provider
	model    llm.Model
	agent    *Agent
	rules    permission.Ruleset
	sandbox  string // the session's sandbox mode (Info.Sandbox)
	tools    map[string]tool.Tool
	lastStep bool
	summary  bool              // the step writes a compaction summary
	snapshot string            // the open checkpoint of the step, "" when none or closed
	turn     []callRecord      // the calls of earlier steps of this turn
	msgs     []message.Message // the session's messages as this step sent them
	retries  *int              // attempts made at this step, shared across steps

	// compacted says the history was compacted in this turn and cannot
	// be made smaller by compacting it again: a request the provider
	// refuses as too large ends the turn.
	compacted bool

	w *writer

	// Guarded by w.mu.
	open        map[string]message.Part // text and reasoning blocks by stream id
	calls       map[string]*message.ToolPart
	order       []*message.ToolPart // this step's calls in the order they came
	finished    bool                // the stream ended with a finish event
	blocked     bool                // the user rejected a permission
	received    bool                // the stream produced something
	interrupted bool                // a call was cut short by an abort
	toolsDone   sync.WaitGroup

	usage llm.Usage // the step's usage; the stream goroutine's only
}

func (e *Engine) newProcessor(ctx context.Context, info *message.Info) *processor {
	p := &processor{
		e:     e,
		open:  map[string]message.Part{},
		calls: map[string]*message.ToolPart{},
	}
	p.w = newWriter(ctx, e.sessions, e.cfg.Bus, e.cfg.FlushInterval, info, func(msg string, args ...any) {
		e.cfg.Log.Error(msg, args...)
	})
	return p
}

func (p *processor) now() int64 { return p.e.cfg.Now().UnixMilli() }

// process streams req until the step ends, retrying transient failures, and
// says what the loop should do next. The error is a write to the store that
// failed: the loop must end, since nothing more it does could be saved.
func (p *processor) process(ctx context.Context, req *llm.Request) (outcome, error) {
	out := p.steps(ctx, req)
	if err := p.w.failure(); err != nil {
		return outStop, err
	}
	if out == outOverflow && p.empty() {
		// The request was refused as too large before anything came
		// back: the compaction replays the prompt, and an empty answer
		// would stay in the transcript.
		if err := p.e.sessions.removeMessage(p.w.ctx, p.w.info.SessionID, p.w.info.ID); err != nil {
			return outStop, err
		}
	}
	return out, nil
}

// empty reports whether the step's message holds nothing but its start.
func (p *processor) empty() bool {
	p.w.mu.Lock()
	defer p.w.mu.Unlock()
	for _, part := range p.w.parts {
		switch part := part.(type) {
		case *message.StepStartPart:
		case *message.TextPart:
			if !part.Ignored {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func (p *processor) steps(ctx context.Context, req *llm.Request) outcome {
	defer p.w.close()
	snapshot := p.track(ctx)
	defer p.endSnapshot(ctx) // an interrupted step's changes are kept too
	p.w.mu.Lock()
	p.w.add(&message.StepStartPart{PartBase: message.PartBase{ID: id.Ascending(id.Part)}, Snapshot: snapshot})
	p.w.touchInfo()
	p.w.mu.Unlock()
	p.w.flush(true)

	for {
		fail := p.stream(ctx, req)
		if fail != nil && p.willRetry(ctx, fail) {
			p.discardText()
		}
		p.closeBlocks()
		if p.w.failure() != nil {
			p.waitTools(abortGrace)
			return outStop
		}
		if ctx.Err() != nil {
			p.abort()
			return outStop
		}
		if fail == nil {
			return p.finishStep(ctx, snapshot)
		}
		if !p.toolsOrCancel(ctx) {
			p.abort()
			return outStop
		}
		if fail.Kind == llm.ErrContextOverflow {
			if p.summary {
				me := message.NewError(message.ErrContextOverflow,
					"the conversation is too large to compact: "+fail.Message+"; start a new session")
				p.complete(me)
				p.e.publishError(p.w.info.SessionID, me)
				return outStop
			}
			if p.compacted {
				me := message.NewError(message.ErrContextOverflow, stillTooLarge(fail.Message, p.msgs))
				p.complete(me)
				p.e.publishError(p.w.info.SessionID, me)
				return outStop
			}
			if p.e.autoCompaction() {
				p.complete(nil)
				return outOverflow
			}
			p.complete(message.FromError(fail))
			p.e.publishError(p.w.info.SessionID, message.FromError(fail))
			return outStop
		}
		tooLong := fail.Retryable() && fail.RetryAfter > p.e.cfg.MaxRetryWait
		if !fail.Retryable() || *p.retries >= p.e.cfg.MaxRetries || tooLong {
			me := message.FromError(fail)
			switch {
			case tooLong:
				me.Data.Message = fmt.Sprintf("%s (the provider asked to retry in %s, longer than the %s codeloop waits; "+
					"try again later, or raise experimental.max_retry_wait)", me.Error(),
					fail.RetryAfter.Round(time.Second), p.e.cfg.MaxRetryWait.Round(time.Second))
			case fail.Retryable():
				me.Data.Message = fmt.Sprintf("%s (gave up after %d retries)", me.Error(), *p.retries)
			}
			p.complete(me)
			p.e.publishError(p.w.info.SessionID, me)
			return outStop
		}
		*p.retries++
		if !p.sleepRetry(ctx, fail) {
			p.abort()
			return outStop
		}
		p.w.mu.Lock()
		received := p.received
		p.w.mu.Unlock()
		if received {
			// What the failed attempt produced stays in this message; the
			// next step starts a new one.
			p.complete(message.FromError(fail))
			return outContinue
		}
	}
}

// willRetry reports whether a failed attempt will be made again.
func (p *processor) willRetry(ctx context.Context, fail *llm.Error) bool {
	return ctx.Err() == nil && p.w.failure() == nil && fail.Retryable() && fail.Kind != llm.ErrContextOverflow &&
		*p.retries < p.e.cfg.MaxRetries && fail.RetryAfter <= p.e.cfg.MaxRetryWait
}

// discardedNote is the metadata note on text an attempt streamed before it
// failed and was retried.
const discardedNote = "the connection dropped before this text was complete; the answer was asked for again"

// discardText marks the text of a failed attempt that will be retried as
// discarded: the model does not see it again (it is ignored) and front ends
// know that what follows replaces it.
func (p *processor) discardText() {
	p.w.mu.Lock()
	defer p.w.mu.Unlock()
	for _, part := range p.w.parts {
		t, ok := part.(*message.TextPart)
		if !ok || t.Synthetic || t.Ignored {
			continue
		}
		t.Ignored = true
		if t.Metadata == nil {
			t.Metadata = map[string]any{}
		}
		t.Metadata["discarded"] = discardedNote
		p.w.touch(t)
	}
}

// stream runs one attempt and returns its failure, if any. A stream that
// sends nothing for the provider's stall timeout is cut and retried, so a
// stalled model never hangs the session; tool calls already started keep
// running under ctx.
func (p *processor) stream(ctx context.Context, req *llm.Request) *llm.Error {
	var fail *llm.Error
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	idle := p.e.stallTimeout(p.provider.ID())
	var stalled atomic.Bool
	alive := func() {}
	if idle > 0 {
		watchdog := time.AfterFunc(idle, func() { stalled.Store(true); cancel() })
		defer watchdog.Stop()
		alive = func() { watchdog.Reset(idle) }
	}
	for ev := range p.provider.Stream(sctx, req) {
		alive()
		if ctx.Err() != nil || stalled.Load() {
			break
		}
		switch ev.Type {
		case llm.EventTextStart:
			p.startBlock(ev.ID, false)
		case llm.EventTextDelta:
			p.delta(ev.ID, ev.Text, false)
		case llm.EventTextEnd:
			p.endBlock(ev.ID, ev)
		case llm.EventReasoningStart:
			p.startBlock(ev.ID, true)
		case llm.EventReasoningDelta:
			p.delta(ev.ID, ev.Text, true)
		case llm.EventReasoningEnd:
			p.endBlock(ev.ID, ev)
		case llm.EventToolInputStart:
			p.toolPending(ev.ID, ev.ToolName)
		case llm.EventToolInputDelta:
			p.toolInputDelta(ev.ID, ev.Text)
		case llm.EventToolCall:
			p.toolCall(ctx, ev.ID, ev.ToolName, ev.Input)
		case llm.EventFinish:
			p.w.mu.Lock()
			p.finished = true
			p.w.info.Finish = string(ev.Reason)
			if p.w.info.Finish == "" {
				p.w.info.Finish = string(llm.FinishUnknown)
			}
			p.w.info.Tokens = tokens(ev.Usage)
			p.w.mu.Unlock()
			p.usage = ev.Usage
		case llm.EventError:
			fail = ev.Err
			if fail == nil {
				fail = &llm.Error{Kind: llm.ErrOther, Message: "the provider failed without saying why"}
			}
		}
	}
	if stalled.Load() && ctx.Err() == nil && !p.finishedNow() {
		return &llm.Error{Kind: llm.ErrRetryable, Provider: p.provider.ID(),
			Message: fmt.Sprintf("the model sent nothing for %s; the stream was cut (provider options.chunkTimeout sets the limit)", idle)}
	}
	if fail == nil && ctx.Err() == nil && !p.finishedNow() {
		fail = &llm.Error{Kind: llm.ErrRetryable, Provider: p.provider.ID(), Message: "the response ended before the model finished"}
	}
	if fail != nil && fail.Kind == llm.ErrCanceled && ctx.Err() == nil {
		fail.Kind = llm.ErrRetryable
	}
	return fail
}

func (p *processor) finishedNow() bool {
	p.w.mu.Lock()
	defer p.w.mu.Unlock()
	return p.finished
}

func tokens(u llm.Usage) message.Tokens {
	return message.Tokens{
		Total:     u.Total(),
		Input:     u.Input,
		Output:    u.Output,
		Reasoning: u.Reasoning,
		Cache:     message.TokensCache{Read: u.CacheRead, Write: u.CacheWrite},
	}
}

// startBlock opens a text or reasoning part and publishes it before any
// of its deltas, so watchers know what the deltas belong to.
func (p *processor) startBlock(streamID string, reasoning bool) message.Part {
	p.w.mu.Lock()
	_, existed := p.open[streamID]
	part := p.startBlockLocked(streamID, reasoning)
	p.w.mu.Unlock()
	if !existed {
		p.w.flush(true)
	}
	return part
}

func (p *processor) startBlockLocked(streamID string, reasoning bool) message.Part {
	if part, ok := p.open[streamID]; ok {
		return part
	}
	base := message.PartBase{ID: id.Ascending(id.Part)}
	var part message.Part
	if reasoning {
		part = &message.ReasoningPart{PartBase: base, Time: message.PartTime{Start: p.now()}}
	} else {
		part = &message.TextPart{PartBase: base, Time: &message.PartTime{Start: p.now()}}
	}
	p.open[streamID] = part
	p.received = true
	p.w.add(part)
	return part
}

func (p *processor) delta(streamID, text string, reasoning bool) {
	if text == "" {
		return
	}
	p.w.mu.Lock()
	part, ok := p.open[streamID]
	if !ok {
		p.w.mu.Unlock()
		part = p.startBlock(streamID, reasoning)
		p.w.mu.Lock()
	}
	p.w.appendText(part, text)
	p.w.mu.Unlock()
	p.w.emitDelta(part, "text", text)
}

func (p *processor) endBlock(streamID string, ev llm.Event) {
	p.w.mu.Lock()
	part, ok := p.open[streamID]
	if !ok {
		if ev.Type != llm.EventReasoningEnd || ev.Signature == "" && ev.Redacted == "" && ev.Encrypted == "" {
			p.w.mu.Unlock()
			return
		}
		part = p.startBlockLocked(streamID, true)
	}
	delete(p.open, streamID)
	p.endPartLocked(part)
	if rp, ok := part.(*message.ReasoningPart); ok {
		for k, v := range map[string]string{
			message.ReasoningSignature: ev.Signature, message.ReasoningRedacted: ev.Redacted,
			message.ReasoningEncrypted: ev.Encrypted, message.ReasoningItemID: ev.ItemID,
		} {
			if v == "" {
				continue
			}
			if rp.Metadata == nil {
				rp.Metadata = map[string]any{}
			}
			rp.Metadata[k] = v
		}
	}
	p.w.mu.Unlock()
	p.w.flush(true)
}

func (p *processor) endPartLocked(part message.Part) {
	p.w.syncText(part)
	delete(p.w.texts, part)
	switch part := part.(type) {
	case *message.TextPart:
		part.Time.End = p.now()
	case *message.ReasoningPart:
		part.Time.End = p.now()
	}
	p.w.touch(part)
}

// closeBlocks ends the text and reasoning blocks the stream left open.
func (p *processor) closeBlocks() {
	p.w.mu.Lock()
	for sid, part := range p.open {
		p.endPartLocked(part)
		delete(p.open, sid)
	}
	p.w.mu.Unlock()
	p.w.flush(true)
}

// track opens the step's checkpoint, or returns "" without one.
func (p *processor) track(ctx context.Context) string {
	if p.e.cfg.Snapshots == nil {
		return ""
	}
	s, err := p.e.cfg.Snapshots.Begin(ctx, p.e.cfg.Worktree, p.w.info.SessionID, p.w.info.ID)
	if err != nil {
		p.e.cfg.Log.Warn("opening a snapshot", "err", err)
		return ""
	}
	p.snapshot = s
	return s
}

// beforeTool tells the snapshots a tool is about to run that may change
// files it does not name (tool.Traits.Contained is false).
func (p *processor) beforeTool(ctx context.Context, t tool.Tool) {
	if p.snapshot == "" || tool.Describe(t).Contained {
		return
	}
	if err := p.e.cfg.Snapshots.BeforeTool(ctx, p.snapshot); err != nil {
		p.e.cfg.Log.Warn("scanning the project before a tool", "tool", t.ID(), "err", err)
	}
}

// endSnapshot closes the step's checkpoint, once, and adds a patch part
// naming it when the step changed files.
func (p *processor) endSnapshot(ctx context.Context) {
	cp := p.snapshot
	if cp == "" {
		return
	}
	p.snapshot = ""
	patch, err := p.e.cfg.Snapshots.Finish(context.WithoutCancel(ctx), cp)
	if err != nil {
		p.e.cfg.Log.Warn("closing a snapshot", "err", err)
		return
	}
	if len(patch.Files) == 0 && len(patch.Skipped) == 0 {
		return
	}
	part := &message.PatchPart{PartBase: message.PartBase{ID: id.Ascending(id.Part)}, Hash: cp, Files: patch.Files}
	for _, sk := range patch.Skipped {
		part.Skipped = append(part.Skipped, sk.Path+": "+sk.Reason)
	}
	p.w.mu.Lock()
	p.w.add(part)
	p.w.mu.Unlock()
}

// finishStep records the step's end once its tools are done.
func (p *processor) finishStep(ctx context.Context, snapshot string) outcome {
	if !p.toolsOrCancel(ctx) {
		p.abort()
		return outStop
	}
	if p.w.failure() != nil {
		return outStop
	}
	if ctx.Err() != nil {
		p.abort()
		return outStop
	}
	*p.retries = 0
	cost := p.model.Cost.Price(p.usage)
	p.w.mu.Lock()
	reason := p.w.info.Finish
	tk := p.w.info.Tokens
	p.w.add(&message.StepFinishPart{PartBase: message.PartBase{ID: id.Ascending(id.Part)},
		Reason: reason, Snapshot: snapshot, Cost: cost, Tokens: tk})
	p.w.info.Cost += cost
	blocked := p.blocked
	p.w.mu.Unlock()
	p.endSnapshot(ctx)
	if err := p.e.sessions.AddUsage(p.w.ctx, p.w.info.SessionID, cost, tk); err != nil {
		p.e.cfg.Log.Error("adding usage", "err", err)
	}
	var fail *message.Error
	if reason == string(llm.FinishContentFilter) {
		fail = message.NewError(message.ErrContentFilter, "the provider's content filter stopped the response")
	}
	p.complete(fail)
	switch {
	case fail != nil:
		p.e.publishError(p.w.info.SessionID, fail)
		return outStop
	case blocked && !p.e.cfg.ContinueOnReject:
		return outStop
	case !p.summary && p.e.overflow(tk, p.model):
		return outCompact
	}
	return outContinue
}

// complete sets the message's error and completion time and saves it.
func (p *processor) complete(fail *message.Error) {
	p.w.mu.Lock()
	if fail != nil {
		p.w.info.Error = fail
	}
	p.w.info.Time.Completed = p.now()
	p.w.touchInfo()
	p.w.mu.Unlock()
	p.w.flush(true)
}

// abort ends an interrupted step: running calls become errors marked
// interrupted, and the message gets MessageAbortedError unless it was
// complete.
func (p *processor) abort() {
	p.waitTools(abortGrace)
	p.w.mu.Lock()
	p.interruptCallsLocked("Tool execution aborted")
	complete := p.finished && !p.interrupted
	p.w.mu.Unlock()
	if complete {
		p.complete(nil)
		return
	}
	p.complete(message.Aborted())
}

// interruptCallsLocked turns calls that never finished into errors and
// reports whether there were any; the caller holds w.mu.
func (p *processor) interruptCallsLocked(reason string) bool {
	found := false
	for _, part := range p.order {
		st := &part.State
		if st.Status != message.ToolPending && st.Status != message.ToolRunning {
			continue
		}
		found = true
		p.interruptLocked(part, reason)
	}
	return found
}

// interruptLocked ends a call as an interrupted error; the caller holds
// w.mu.
func (p *processor) interruptLocked(part *message.ToolPart, reason string) {
	st := &part.State
	if st.Metadata == nil {
		st.Metadata = map[string]any{}
	}
	st.Metadata[message.MetadataInterrupted] = true
	st.Status = message.ToolError
	st.Error = reason
	if st.Time.Start == 0 {
		st.Time.Start = p.now()
	}
	st.Time.End = p.now()
	p.w.touch(part)
	p.interrupted = true
}

// waitTools waits up to d for running tools to return.
// abortGrace is how long an aborted step waits for its tools to stop
// before it records them as interrupted and ends: a tool that ignores its
// cancellation (stuck in a system call, say) must never keep codeloop from
// answering a signal.
const abortGrace = 2 * time.Second

// toolsOrCancel waits until the step's tools have finished and reports
// true, or until ctx ends and reports false.
func (p *processor) toolsOrCancel(ctx context.Context) bool {
	done := make(chan struct{})
	go func() {
		p.toolsDone.Wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-ctx.Done():
		return false
	}
}

func (p *processor) waitTools(d time.Duration) {
	done := make(chan struct{})
	go func() {
		p.toolsDone.Wait()
		close(done)
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		p.e.cfg.Log.Warn("tools still running after an abort", "message", p.w.info.ID)
	}
}

// sleepRetry publishes the retry status and waits out the delay. It
// returns false when ctx ended first.
func (p *processor) sleepRetry(ctx context.Context, fail *llm.Error) bool {
	attempt := *p.retries
	delay := retryDelay(attempt, fail, p.e.cfg.RetryBase, p.e.cfg.RetryCap)
	me := message.FromError(fail)
	next := p.e.cfg.Now().Add(delay)
	p.w.mu.Lock()
	p.w.add(&message.RetryPart{PartBase: message.PartBase{ID: id.Ascending(id.Part)},
		Attempt: attempt, Error: *me, Time: message.RetryTime{Created: p.now()}})
	p.w.mu.Unlock()
	p.w.flush(true)
	p.e.setStatus(p.w.info.SessionID, Status{Type: StatusRetry, Attempt: attempt, Max: p.e.cfg.MaxRetries, Message: me.Error(), Next: next.UnixMilli()})
	p.e.cfg.Log.Info("retrying", "session", p.w.info.SessionID, "attempt", attempt, "delay", delay, "err", fail)
	t := time.NewTimer(delay)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
	}
	p.e.setStatus(p.w.info.SessionID, Status{Type: StatusBusy})
	return true
}

// isRejected reports whether err is a plain rejection by the user (a
// permission rejected, a question dismissed), which stops the loop.
func isRejected(err error) bool {
	var r *permission.RejectedError
	var q *tool.QuestionRejectedError
	return errors.As(err, &r) || errors.As(err, &q)
}
