package permission

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/id"
	"github.com/codeloop/codeloop/internal/store"
)

// ReplyKind is the user's answer to a permission request.
type ReplyKind string

// The answers to a permission request.
const (
	// ReplyOnce allows this request only.
	ReplyOnce ReplyKind = "once"
	// ReplyAlways allows this request and, from now on, every request
	// matching its Always patterns.
	ReplyAlways ReplyKind = "always"
	// ReplyReject refuses this request and every other pending request of
	// the session.
	ReplyReject ReplyKind = "reject"
)

// Scope is how far an "always" reply reaches.
type Scope string

// The scopes an "always" reply can be saved with.
const (
	ScopeSession Scope = "session" // this session (the default)
	ScopeProject Scope = "project" // every session of this project
	ScopeGlobal  Scope = "global"  // everywhere
)

// Reply is the user's answer to one pending request.
type Reply struct {
	Kind ReplyKind `json:"reply"`
	// Message, with a reject, is the user's correction for the model.
	Message string `json:"message,omitempty"`
	// Scope, with always, is where the approval is kept (default session).
	Scope Scope `json:"scope,omitempty"`
}

// Replied is the Properties of a bus.PermissionReplied event.
type Replied struct {
	SessionID string    `json:"sessionID"`
	RequestID string    `json:"requestID"`
	Reply     ReplyKind `json:"reply"`
}

// ErrUnknownRequest is returned by Reply for a request that is not
// pending (already answered, cancelled, or never asked).
var ErrUnknownRequest = errors.New("no such pending permission request")

// Approvals is the part of the store that keeps "always" replies.
type Approvals interface {
	AddApproval(ctx context.Context, a store.Approval) error
	ListApprovals(ctx context.Context, scope, scopeID string) ([]store.Approval, error)
}

// Options configure a Service.
type Options struct {
	// ProjectID scopes "project" approvals.
	ProjectID string
	// AutoApprove answers every ask "once" without asking, except requests
	// that could not be analysed.
	AutoApprove bool
	// NonInteractive rejects the asks no one can answer: all of them, or
	// with AutoApprove those that could not be analysed. The events are
	// still published so the caller can report them.
	NonInteractive bool
}

// Service runs the ask flow for one project: it checks requests against
// the rules in force plus the user's approvals, publishes what must be
// asked on the bus, and waits for Reply. It is safe for concurrent use.
type Service struct {
	bus       *bus.Bus
	approvals Approvals
	projectID string

	mu             sync.Mutex
	auto           bool
	nonInteractive bool
	pending        map[string]*pending
	loaded         map[string]bool    // approval scopes read from the store, by scopeKey
	approved       map[string]Ruleset // approvals in memory, by scopeKey
}

type pending struct {
	req   Request
	rules Ruleset
	done  chan error // receives the outcome once; buffered
}

// NewService returns a service publishing on b and keeping approvals in
// approvals (nil keeps them in memory only).
func NewService(b *bus.Bus, approvals Approvals, opts Options) *Service {
	return &Service{
		bus:            b,
		approvals:      approvals,
		projectID:      opts.ProjectID,
		auto:           opts.AutoApprove,
		nonInteractive: opts.NonInteractive,
		pending:        make(map[string]*pending),
		loaded:         make(map[string]bool),
		approved:       make(map[string]Ruleset),
	}
}

// SetAutoApprove turns automatic "once" answers on or off.
func (s *Service) SetAutoApprove(on bool) {
	s.mu.Lock()
	s.auto = on
	s.mu.Unlock()
}

// Asker returns an Asker that checks requests against rules.
func (s *Service) Asker(rules Ruleset) Asker { return asker{s: s, rules: rules} }

type asker struct {
	s     *Service
	rules Ruleset
}

func (a asker) Ask(ctx context.Context, req Request) error { return a.s.Ask(ctx, a.rules, req) }

func scopeKey(scope Scope, scopeID string) string { return string(scope) + "\x00" + scopeID }

// load reads the saved approvals of the session, the project and the
// global scope once, and returns all approvals in force for the session.
func (s *Service) load(ctx context.Context, sessionID string) (Ruleset, error) {
	scopes := []struct {
		scope Scope
		id    string
	}{{ScopeGlobal, ""}, {ScopeProject, s.projectID}, {ScopeSession, sessionID}}
	for _, sc := range scopes {
		key := scopeKey(sc.scope, sc.id)
		s.mu.Lock()
		done := s.loaded[key]
		s.mu.Unlock()
		if done || s.approvals == nil || (sc.scope != ScopeGlobal && sc.id == "") {
			continue
		}
		saved, err := s.approvals.ListApprovals(ctx, string(sc.scope), sc.id)
		if err != nil {
			return nil, fmt.Errorf("reading saved approvals: %w", err)
		}
		s.mu.Lock()
		if !s.loaded[key] {
			s.loaded[key] = true
			for _, a := range saved {
				s.approved[key] = append(s.approved[key], Rule{Permission: a.Permission, Pattern: a.Pattern, Action: Allow})
			}
		}
		s.mu.Unlock()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.approvedFor(sessionID), nil
}

// approvedFor returns the approvals in force for a session; s.mu is held.
func (s *Service) approvedFor(sessionID string) Ruleset {
	return Merge(s.approved[scopeKey(ScopeGlobal, "")], s.approved[scopeKey(ScopeProject, s.projectID)],
		s.approved[scopeKey(ScopeSession, sessionID)])
}

// decide evaluates one pattern: a deny rule of the configuration always
// wins; otherwise the user's approvals allow what the rules would ask.
func decide(permission, pattern string, rules, approved Ruleset) Rule {
	r, _ := Evaluate(permission, pattern, rules)
	if r.Action != Ask {
		return r
	}
	if a, ok := Evaluate(permission, pattern, approved); ok {
		return a
	}
	return r
}

// lastDeny is the last deny rule of rules for permission, which a request
// that could not be analysed is taken to match.
func lastDeny(permission string, rules Ruleset) (Rule, bool) {
	for i := len(rules) - 1; i >= 0; i-- {
		if rules[i].Action == Deny && Match(permission, rules[i].Permission) {
			return rules[i], true
		}
	}
	return Rule{}, false
}

// Ask checks req against rules and the saved approvals. A pattern denied by
// a rule fails the request at once with a *DeniedError; when every pattern
// is allowed it returns nil; otherwise the request is published as
// bus.PermissionAsked and Ask waits for Reply or for ctx to end. A request
// marked Unanalysable matches every deny rule of its permission and is
// asked about even when the rules allow it.
func (s *Service) Ask(ctx context.Context, rules Ruleset, req Request) error {
	approved, err := s.load(ctx, req.SessionID)
	if err != nil {
		return err
	}
	ask := false
	for _, p := range req.Patterns {
		switch r := decide(req.Permission, p, rules, approved); r.Action {
		case Deny:
			return &DeniedError{Permission: req.Permission, Pattern: p, Rule: r}
		case Ask:
			ask = true
		}
	}
	for _, al := range req.Aliases {
		r := decide(req.Permission, al.As, rules, approved)
		if r.Action == Allow || Match(al.Pattern, r.Pattern) {
			continue // allowed, or a rule the pattern as called meets too
		}
		if r.Action == Deny {
			return &DeniedError{Permission: req.Permission, Pattern: al.Pattern, Rule: r,
				Reason: "the program it runs is " + strings.Fields(al.As)[0] + ", through a link or a copy"}
		}
		ask = true
	}
	if req.Unanalysable {
		if r, ok := lastDeny(req.Permission, rules); ok {
			return &DeniedError{Permission: req.Permission, Pattern: strings.Join(req.Patterns, "; "), Rule: r,
				Reason: req.Reason, Unanalysable: true}
		}
		ask = true
	}
	inline := unnamedInline(req, rules, approved)
	if len(inline) > 0 {
		// Code given to an interpreter cannot be checked, so it is taken
		// to match every rule of its permission: any deny rule refuses
		// it, and it runs by itself only where the user's rules allow
		// everything.
		if r, ok := lastDeny(req.Permission, rules); ok {
			return &DeniedError{Permission: req.Permission, Pattern: inline[0].Pattern, Rule: r,
				Reason: "code given to an interpreter cannot be checked against the rules, so it is treated as matching every deny rule: " + inline[0].Reason}
		}
		if allowsEverything(req.Permission, rules) {
			inline = nil
		} else {
			ask = true
		}
	}
	switch {
	case req.Confirm, req.Protected:
		ask = true
	case req.Confined:
		ask = false
	}
	if !ask {
		return nil
	}
	if req.ID == "" {
		req.ID = id.Ascending(id.Permission)
	}
	s.mu.Lock()
	auto, nonInteractive := s.auto && !req.Unanalysable && !req.Protected && len(inline) == 0, s.nonInteractive
	s.mu.Unlock()
	switch {
	case auto:
		s.publishAsked(ctx, req)
		s.publishReplied(ctx, req, ReplyOnce)
		return nil
	case nonInteractive:
		s.publishAsked(ctx, req)
		s.publishReplied(ctx, req, ReplyReject)
		reason := "it needs the user's approval and no one can be asked in this mode"
		switch {
		case req.Protected:
			reason = "it needs the user's approval, which is never given automatically: " + req.Reason
		case req.Unanalysable:
			reason = "the command cannot be analysed: " + req.Reason + ". A command that cannot be analysed is " +
				"never approved automatically; rewrite it without what is named above, so that every program it runs " +
				"is written out in the text"
		case len(inline) > 0:
			reason = inlineReason(inline)
		}
		return &RejectedError{Permission: req.Permission, Reason: reason}
	}
	p := &pending{req: req, rules: rules, done: make(chan error, 1)}
	s.mu.Lock()
	s.pending[req.ID] = p
	s.mu.Unlock()
	s.publishAsked(ctx, req)
	select {
	case err := <-p.done:
		return err
	case <-ctx.Done():
		s.mu.Lock()
		_, still := s.pending[req.ID]
		delete(s.pending, req.ID)
		s.mu.Unlock()
		if !still {
			// Answered as the context ended: the answer stands.
			return <-p.done
		}
		s.publishReplied(context.WithoutCancel(ctx), req, ReplyReject)
		return ctx.Err()
	}
}

func (s *Service) publishAsked(ctx context.Context, req Request) {
	if s.bus != nil {
		s.bus.Publish(ctx, bus.Event{Type: bus.PermissionAsked, SessionID: req.SessionID, Properties: req})
	}
}

func (s *Service) publishReplied(ctx context.Context, req Request, kind ReplyKind) {
	if s.bus != nil {
		s.bus.Publish(ctx, bus.Event{Type: bus.PermissionReplied, SessionID: req.SessionID,
			Properties: Replied{SessionID: req.SessionID, RequestID: req.ID, Reply: kind}})
	}
}

// Pending returns the requests waiting for a reply, oldest first.
func (s *Service) Pending() []Request {
	s.mu.Lock()
	out := make([]Request, 0, len(s.pending))
	for _, p := range s.pending {
		out = append(out, p.req)
	}
	s.mu.Unlock()
	slices.SortFunc(out, func(a, b Request) int { return strings.Compare(a.ID, b.ID) })
	return out
}

type outcome struct {
	p    *pending
	err  error
	kind ReplyKind
}

// Reply answers the pending request requestID. Once lets it proceed;
// always also approves its Always patterns in the reply's scope (saved in
// the store) and lets every other pending request that now passes proceed;
// reject fails it with a *CorrectedError carrying the message, or a
// *RejectedError without one, and rejects the session's other pending
// requests. An error saving the approval is returned after the requests
// are answered.
func (s *Service) Reply(ctx context.Context, requestID string, r Reply) error {
	s.mu.Lock()
	p, ok := s.pending[requestID]
	if !ok {
		s.mu.Unlock()
		return fmt.Errorf("%w: %s", ErrUnknownRequest, requestID)
	}
	delete(s.pending, requestID)
	var out []outcome
	var toSave []store.Approval
	switch r.Kind {
	case ReplyOnce:
		out = append(out, outcome{p: p, kind: ReplyOnce})
	case ReplyReject:
		var err error = &RejectedError{Permission: p.req.Permission}
		if r.Message != "" {
			err = &CorrectedError{Permission: p.req.Permission, Message: r.Message}
		}
		out = append(out, outcome{p: p, err: err, kind: ReplyReject})
		for rid, o := range s.pending {
			if o.req.SessionID == p.req.SessionID {
				delete(s.pending, rid)
				out = append(out, outcome{p: o, err: &RejectedError{Permission: o.req.Permission}, kind: ReplyReject})
			}
		}
	case ReplyAlways:
		scope := r.Scope
		if scope == "" {
			scope = ScopeSession
		}
		var err error
		if p.req.Protected {
			// Approved this once: nothing protected is approved for later.
			out = append(out, outcome{p: p, kind: ReplyOnce})
			break
		}
		toSave, err = s.approveLocked(p.req, scope)
		if err != nil {
			s.pending[requestID] = p
			s.mu.Unlock()
			return err
		}
		out = append(out, outcome{p: p, kind: ReplyAlways})
		out = append(out, s.passingLocked(p.req.SessionID, scope)...)
	default:
		s.pending[requestID] = p
		s.mu.Unlock()
		return fmt.Errorf("permission reply %q: want once, always or reject", r.Kind)
	}
	s.mu.Unlock()
	for _, o := range out {
		o.p.done <- o.err
		s.publishReplied(ctx, o.p.req, o.kind)
	}
	var errs []error
	for _, a := range toSave {
		errs = append(errs, s.approvals.AddApproval(ctx, a))
	}
	return errors.Join(errs...)
}

// approveLocked adds allow rules for the request's Always patterns in
// memory, for the session and for the chosen scope, and returns the
// approvals to save in the store. s.mu is held.
func (s *Service) approveLocked(req Request, scope Scope) ([]store.Approval, error) {
	scopeID := ""
	switch scope {
	case ScopeSession:
		scopeID = req.SessionID
	case ScopeProject:
		scopeID = s.projectID
	case ScopeGlobal:
	default:
		return nil, fmt.Errorf("permission scope %q: want session, project or global", scope)
	}
	origin := req.SessionID + ": " + strings.Join(req.Patterns, "; ")
	if len(origin) > 200 {
		origin = strings.ToValidUTF8(origin[:200], "") + "…"
	}
	var save []store.Approval
	now := time.Now().UnixMilli()
	for _, pattern := range req.Always {
		rule := Rule{Permission: req.Permission, Pattern: pattern, Action: Allow}
		sessionKey := scopeKey(ScopeSession, req.SessionID)
		s.approved[sessionKey] = append(s.approved[sessionKey], rule)
		if scope != ScopeSession {
			key := scopeKey(scope, scopeID)
			s.approved[key] = append(s.approved[key], rule)
		}
		if s.approvals == nil || (scope != ScopeGlobal && scopeID == "") {
			continue
		}
		save = append(save, store.Approval{
			ID: id.Ascending(id.Permission), Scope: string(scope), ScopeID: scopeID,
			Permission: req.Permission, Pattern: pattern, Origin: origin, TimeCreated: now,
		})
	}
	return save, nil
}

// passingLocked removes and returns the pending requests that the
// approvals now let through: those of the session, and with a project or
// global approval those of every session. Requests that could not be
// analysed wait for their own answer. s.mu is held.
func (s *Service) passingLocked(sessionID string, scope Scope) []outcome {
	var out []outcome
	for rid, o := range s.pending {
		if o.req.Unanalysable || o.req.Confirm || o.req.Protected || len(o.req.Aliases) > 0 ||
			(scope == ScopeSession && o.req.SessionID != sessionID) {
			continue
		}
		approved := s.approvedFor(o.req.SessionID)
		if len(unnamedInline(o.req, o.rules, approved)) > 0 {
			continue
		}
		pass := true
		for _, pat := range o.req.Patterns {
			if decide(o.req.Permission, pat, o.rules, approved).Action != Allow {
				pass = false
				break
			}
		}
		if pass {
			delete(s.pending, rid)
			out = append(out, outcome{p: o, kind: ReplyAlways})
		}
	}
	return out
}

// ClearSession rejects every pending request of a session, as when the
// session is stopped.
func (s *Service) ClearSession(ctx context.Context, sessionID string) {
	s.mu.Lock()
	var out []*pending
	for rid, o := range s.pending {
		if o.req.SessionID == sessionID {
			delete(s.pending, rid)
			out = append(out, o)
		}
	}
	s.mu.Unlock()
	for _, o := range out {
		o.done <- &RejectedError{Permission: o.req.Permission}
		s.publishReplied(ctx, o.req, ReplyReject)
	}
}
