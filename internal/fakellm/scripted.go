package fakellm

import (
	"context"
	"encoding/json"
	"iter"
	"sync"
	"time"

	"github.com/codeloop/codeloop/internal/llm"
)

// Scripted is an in-process llm.Provider that answers each request with the
// next step of its script and records the requests. When the script runs
// out it fails the request.
type Scripted struct {
	id string
	// OnPause is called when a step reaches a pause; the step goes on when
	// it returns. It receives the index of the step.
	OnPause func(ctx context.Context, step int)

	mu       sync.Mutex
	steps    []Step
	next     int
	requests []llm.Request
}

// NewScripted returns a provider with id that plays steps.
func NewScripted(id string, steps ...Step) *Scripted {
	return &Scripted{id: id, steps: steps}
}

// ID is the provider id.
func (s *Scripted) ID() string { return s.id }

// Requests returns copies of the requests received so far.
func (s *Scripted) Requests() []llm.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]llm.Request, len(s.requests))
	copy(out, s.requests)
	return out
}

// Remaining is the number of steps not played yet.
func (s *Scripted) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.steps) - s.next
}

// copyRequest deep-copies a request through JSON, so later changes by the
// caller do not alter the record.
func copyRequest(r *llm.Request) llm.Request {
	var c llm.Request
	b, err := json.Marshal(r)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil {
		return *r
	}
	return c
}

// Stream plays the next step.
func (s *Scripted) Stream(ctx context.Context, req *llm.Request) iter.Seq[llm.Event] {
	s.mu.Lock()
	s.requests = append(s.requests, copyRequest(req))
	var step Step
	index := s.next
	if s.next < len(s.steps) {
		step = s.steps[s.next]
		s.next++
	}
	s.mu.Unlock()
	return func(yield func(llm.Event) bool) {
		if step == nil {
			yield(llm.Event{Type: llm.EventError, Err: &llm.Error{Kind: llm.ErrOther, Provider: s.id,
				Message: "the script has no more steps"}})
			return
		}
		Play(ctx, s.id, step, func(ctx context.Context) {
			if s.OnPause != nil {
				s.OnPause(ctx, index)
			}
		}, yield)
	}
}

// Play yields a step's events, acting on the control events. It stops when
// ctx ends (yielding a cancellation error) or yield returns false.
func Play(ctx context.Context, provider string, step Step, pause func(context.Context), yield func(llm.Event) bool) {
	canceled := func() {
		yield(llm.Event{Type: llm.EventError, Err: &llm.Error{Kind: llm.ErrCanceled, Provider: provider,
			Message: "request cancelled", Err: ctx.Err()}})
	}
	for _, ev := range step {
		if ctx.Err() != nil {
			canceled()
			return
		}
		switch ev.Type {
		case EventPause:
			if pause != nil {
				pause(ctx)
			}
		case EventHang:
			<-ctx.Done()
			canceled()
			return
		case EventSleep:
			d, _ := time.ParseDuration(ev.Text)
			t := time.NewTimer(d)
			select {
			case <-ctx.Done():
				t.Stop()
				canceled()
				return
			case <-t.C:
			}
		default:
			if ev.Err != nil {
				c := *ev.Err
				ev.Err = &c
			}
			if !yield(ev) {
				return
			}
		}
	}
}
