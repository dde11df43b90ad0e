// Package approval runs the ask flow of permission requests: it checks a
// request against the rules in force and the user's saved approvals,
// publishes what must be asked on the bus, waits for the reply, and keeps
// "always" replies through an injected Storage.
package approval

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
	"github.com/codeloop/codeloop/internal/permission"
)

// Approval is an "always" reply kept for later: requests under Permission
// matching Pattern are allowed in Scope (session, project or global) for
// ScopeID, the session's or project's id. Origin says which request it
// answered.
type Approval struct {
	ID          string
	Scope       string
	ScopeID     string
	Permission  string
	Pattern     string
	Origin      string
	TimeCreated int64 // Unix milliseconds
}

// Storage keeps the approvals of "always" replies across restarts.
type Storage interface {
	AddApproval(ctx context.Context, a Approval) error
	ListApprovals(ctx context.Context, scope, scopeID string) ([]Approval, error)
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
	approvals Storage
	projectID string

	mu             sync.Mutex
	auto           bool
	nonInteractive bool
	pending        map[string]*pending
	loaded         map[string]bool               // approval scopes read from the store, by scopeKey
	approved       map[string]permission.Ruleset // approvals in memory, by scopeKey
}

type pending struct {
	req   permission.Request
	rules permission.Ruleset
	done  chan error // receives the outcome once; buffered
}

// NewService returns a service publishing on b (nil publishes nothing) and
// keeping approvals in approvals (nil keeps them in memory only).
func NewService(b *bus.Bus, approvals Storage, opts Options) *Service {
	return &Service{
		bus:            b,
		approvals:      approvals,
		projectID:      opts.ProjectID,
		auto:           opts.AutoApprove,
		nonInteractive: opts.NonInteractive,
		pending:        make(map[string]*pending),
		loaded:         make(map[string]bool),
		approved:       make(map[string]permission.Ruleset),
	}
}

// SetAutoApprove turns automatic "once" answers on or off.
func (s *Service) SetAutoApprove(on bool) {
	s.mu.Lock()
	s.auto = on
	s.mu.Unlock()
}

// Asker returns an Asker that checks requests against rules.
func (s *Service) Asker(rules permission.Ruleset) permission.Asker { return asker{s: s, rules: rules} }

type asker struct {
	s     *Service
	rules permission.Ruleset
}

func (a asker) Ask(ctx context.Context, req permission.Request) error {
	return a.s.Ask(ctx, a.rules, req)
}

func scopeKey(scope permission.Scope, scopeID string) string { return string(scope) + "\x00" + scopeID }

// load reads the saved approvals of the session, the project and the
// global scope once, and returns all approvals in force for the session.
func (s *Service) load(ctx context.Context, sessionID string) (permission.Ruleset, error) {
	scopes := []struct {
		scope permission.Scope
		id    string
	}{{permission.ScopeGlobal, ""}, {permission.ScopeProject, s.projectID}, {permission.ScopeSession, sessionID}}
	for _, sc := range scopes {
		key := scopeKey(sc.scope, sc.id)
		s.mu.Lock()
		done := s.loaded[key]
		s.mu.Unlock()
		if done || s.approvals == nil || (sc.scope != permission.ScopeGlobal && sc.id == "") {
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
				s.approved[key] = append(s.approved[key], permission.Rule{Permission: a.Permission, Pattern: a.Pattern, Action: permission.Allow})
			}
		}
		s.mu.Unlock()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.approvedFor(sessionID), nil
}

// approvedFor returns the approvals in force for a session; s.mu is held.
func (s *Service) approvedFor(sessionID string) permission.Ruleset {
	return permission.Merge(s.approved[scopeKey(permission.ScopeGlobal, "")], s.approved[scopeKey(permission.ScopeProject, s.projectID)],
		s.approved[scopeKey(permission.ScopeSession, sessionID)])
}

// decide evaluates one pattern: a deny rule of the configuration always
// wins; otherwise the user's approvals allow what the rules would ask.
func decide(perm, pattern string, rules, approved permission.Ruleset) permission.Rule {
	r, _ := permission.Evaluate(perm, pattern, rules)
	if r.Action != permission.Ask {
		return r
	}
	if a, ok := permission.Evaluate(perm, pattern, approved); ok {
		return a
	}
	return r
}

// lastDeny is the last deny rule of rules for perm, which a request
// that could not be analysed is taken to match.
func lastDeny(perm string, rules permission.Ruleset) (permission.Rule, bool) {
	for i := len(rules) - 1; i >= 0; i-- {
		if rules[i].Action == permission.Deny && permission.Match(perm, rules[i].Permission) {
			return rules[i], true
		}
	}
	return permission.Rule{}, false
}

// Ask checks req against rules and the saved approvals. A pattern denied by
// a rule fails the request at once with a *permission.DeniedError; when every pattern
// is allowed it returns nil; otherwise the request is published as
// bus.PermissionAsked and Ask waits for Reply or for ctx to end. A request
// marked Unanalysable matches every deny rule of its permission and is
// asked about even when the rules allow it.
func (s *Service) Ask(ctx context.Context, rules permission.Ruleset, req permission.Request) error {
	approved, err := s.load(ctx, req.SessionID)
	if err != nil {
		return err
	}
	ask := false
	for _, p := range req.Patterns {
		switch r := decide(req.Permission, p, rules, approved); r.Action {
		case permission.Deny:
			return &permission.DeniedError{Permission: req.Permission, Pattern: p, Rule: r}
		case permission.Ask:
			ask = true
		}
	}
	for _, al := range req.Aliases {
		r := decide(req.Permission, al.As, rules, approved)
		if r.Action == permission.Allow || permission.Match(al.Pattern, r.Pattern) {
			continue // allowed, or a rule the pattern as called meets too
		}
		if r.Action == permission.Deny {
			return &permission.DeniedError{Permission: req.Permission, Pattern: al.Pattern, Rule: r,
				Reason: "the program it runs is " + strings.Fields(al.As)[0] + ", through a link or a copy"}
		}
		ask = true
	}
	if req.Unanalysable {
		if r, ok := lastDeny(req.Permission, rules); ok {
			return &permission.DeniedError{Permission: req.Permission, Pattern: strings.Join(req.Patterns, "; "), Rule: r,
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
			return &permission.DeniedError{Permission: req.Permission, Pattern: inline[0].Pattern, Rule: r,
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
		s.publishReplied(ctx, req, permission.ReplyOnce)
		return nil
	case nonInteractive:
		s.publishAsked(ctx, req)
		s.publishReplied(ctx, req, permission.ReplyReject)
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
		return &permission.RejectedError{Permission: req.Permission, Reason: reason}
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
		s.publishReplied(context.WithoutCancel(ctx), req, permission.ReplyReject)
		return ctx.Err()
	}
}

func (s *Service) publishAsked(ctx context.Context, req permission.Request) {
	if s.bus != nil {
		s.bus.Publish(ctx, bus.Event{Type: bus.PermissionAsked, SessionID: req.SessionID, Properties: req})
	}
}

func (s *Service) publishReplied(ctx context.Context, req permission.Request, kind permission.ReplyKind) {
	if s.bus != nil {
		s.bus.Publish(ctx, bus.Event{Type: bus.PermissionReplied, SessionID: req.SessionID,
			Properties: permission.Replied{SessionID: req.SessionID, RequestID: req.ID, Reply: kind}})
	}
}

// Pending returns the requests waiting for a reply, oldest first.
func (s *Service) Pending() []permission.Request {
	s.mu.Lock()
	out := make([]permission.Request, 0, len(s.pending))
	for _, p := range s.pending {
		out = append(out, p.req)
	}
	s.mu.Unlock()
	slices.SortFunc(out, func(a, b permission.Request) int { return strings.Compare(a.ID, b.ID) })
	return out
}

type outcome struct {
	p    *pending
	err  error
	kind permission.ReplyKind
}

// Reply answers the pending request requestID. Once lets it proceed;
// always also approves its Always patterns in the reply's scope (saved in
// the store) and lets every other pending request that now passes proceed;
// reject fails it with a *CorrectedError carrying the message, or a
// *RejectedError without one, and rejects the session's other pending
// requests. An error saving the approval is returned after the requests
// are answered.
func (s *Service) Reply(ctx context.Context, requestID string, r permission.Reply) error {
	s.mu.Lock()
	p, ok := s.pending[requestID]
	if !ok {
		s.mu.Unlock()
		return fmt.Errorf("%w: %s", permission.ErrUnknownRequest, requestID)
	}
	delete(s.pending, requestID)
	var out []outcome
	var toSave []Approval
	switch r.Kind {
	case permission.ReplyOnce:
		out = append(out, outcome{p: p, kind: permission.ReplyOnce})
	case permission.ReplyReject:
		var err error = &permission.RejectedError{Permission: p.req.Permission}
		if r.Message != "" {
			err = &permission.CorrectedError{Permission: p.req.Permission, Message: r.Message}
		}
		out = append(out, outcome{p: p, err: err, kind: permission.ReplyReject})
		for rid, o := range s.pending {
			if o.req.SessionID == p.req.SessionID {
				delete(s.pending, rid)
				out = append(out, outcome{p: o, err: &permission.RejectedError{Permission: o.req.Permission}, kind: permission.ReplyReject})
			}
		}
	case permission.ReplyAlways:
		scope := r.Scope
		if scope == "" {
			scope = permission.ScopeSession
		}
		var err error
		if p.req.Protected {
			// Approved this once: nothing protected is approved for later.
			out = append(out, outcome{p: p, kind: permission.ReplyOnce})
			break
		}
		toSave, err = s.approveLocked(p.req, scope)
		if err != nil {
			s.pending[requestID] = p
			s.mu.Unlock()
			return err
		}
		out = append(out, outcome{p: p, kind: permission.ReplyAlways})
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
func (s *Service) approveLocked(req permission.Request, scope permission.Scope) ([]Approval, error) {
	scopeID := ""
	switch scope {
	case permission.ScopeSession:
		scopeID = req.SessionID
	case permission.ScopeProject:
		scopeID = s.projectID
	case permission.ScopeGlobal:
	default:
		return nil, fmt.Errorf("permission scope %q: want session, project or global", scope)
	}
	origin := req.SessionID + ": " + strings.Join(req.Patterns, "; ")
	if len(origin) > 200 {
		origin = strings.ToValidUTF8(origin[:200], "") + "…"
	}
	var save []Approval
	now := time.Now().UnixMilli()
	for _, pattern := range req.Always {
		rule := permission.Rule{Permission: req.Permission, Pattern: pattern, Action: permission.Allow}
		sessionKey := scopeKey(permission.ScopeSession, req.SessionID)
		s.approved[sessionKey] = append(s.approved[sessionKey], rule)
		if scope != permission.ScopeSession {
			key := scopeKey(scope, scopeID)
			s.approved[key] = append(s.approved[key], rule)
		}
		if s.approvals == nil || (scope != permission.ScopeGlobal && scopeID == "") {
			continue
		}
		save = append(save, Approval{
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
func (s *Service) passingLocked(sessionID string, scope permission.Scope) []outcome {
	var out []outcome
	for rid, o := range s.pending {
		if o.req.Unanalysable || o.req.Confirm || o.req.Protected || len(o.req.Aliases) > 0 ||
			(scope == permission.ScopeSession && o.req.SessionID != sessionID) {
			continue
		}
		approved := s.approvedFor(o.req.SessionID)
		if len(unnamedInline(o.req, o.rules, approved)) > 0 {
			continue
		}
		pass := true
		for _, pat := range o.req.Patterns {
			if decide(o.req.Permission, pat, o.rules, approved).Action != permission.Allow {
				pass = false
				break
			}
		}
		if pass {
			delete(s.pending, rid)
			out = append(out, outcome{p: o, kind: permission.ReplyAlways})
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
		o.done <- &permission.RejectedError{Permission: o.req.Permission}
		s.publishReplied(ctx, o.req, permission.ReplyReject)
	}
}
