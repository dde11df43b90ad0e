package approval

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/shellscan"
	"github.com/codeloop/codeloop/internal/store"
)

// askRules are the rules of the ask-flow tests: git asks, rm is denied,
// everything else is allowed.
var askRules = permission.Ruleset{
	{Permission: "*", Pattern: "*", Action: permission.Allow},
	{Permission: "bash", Pattern: "git *", Action: permission.Ask},
	{Permission: "bash", Pattern: "rm *", Action: permission.Deny},
}

// harness is a service on a real bus and a real store, with a
// subscription to its permission events.
type harness struct {
	t   *testing.T
	svc *Service
	st  *store.Store
	sub *bus.Subscription
}

func newHarness(t *testing.T, path string, opts Options) *harness {
	t.Helper()
	st, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	b := bus.New(0)
	sub := b.Subscribe(bus.Filter{Types: []string{bus.PermissionAsked, bus.PermissionReplied}}, 64)
	t.Cleanup(sub.Close)
	if opts.ProjectID == "" {
		opts.ProjectID = "prj_test"
	}
	return &harness{t: t, svc: NewService(b, storeApprovals{st}, opts), st: st, sub: sub}
}

// storeApprovals keeps approvals in a real store, as the app does.
type storeApprovals struct{ st *store.Store }

func (s storeApprovals) AddApproval(ctx context.Context, a Approval) error {
	return s.st.AddApproval(ctx, store.Approval(a))
}

func (s storeApprovals) ListApprovals(ctx context.Context, scope, scopeID string) ([]Approval, error) {
	saved, err := s.st.ListApprovals(ctx, scope, scopeID)
	out := make([]Approval, len(saved))
	for i, a := range saved {
		out[i] = Approval(a)
	}
	return out, err
}

// next returns the next permission event, failing after a generous
// deadline so a hang shows.
func (h *harness) next() bus.Event {
	h.t.Helper()
	select {
	case e := <-h.sub.C:
		return e
	case <-time.After(10 * time.Second):
		h.t.Fatal("no permission event")
		return bus.Event{}
	}
}

// none checks that no event is waiting.
func (h *harness) none() {
	h.t.Helper()
	select {
	case e := <-h.sub.C:
		h.t.Fatalf("unexpected event %s %+v", e.Type, e.Properties)
	default:
	}
}

// ask starts Ask in the background and returns the request as published
// and a channel with Ask's result.
func (h *harness) ask(ctx context.Context, rules permission.Ruleset, req permission.Request) (permission.Request, <-chan error) {
	h.t.Helper()
	done := make(chan error, 1)
	go func() { done <- h.svc.Ask(ctx, rules, req) }()
	e := h.next()
	if e.Type != bus.PermissionAsked {
		h.t.Fatalf("got %s, want %s", e.Type, bus.PermissionAsked)
	}
	asked, ok := e.Properties.(permission.Request)
	if !ok || asked.ID == "" || e.SessionID != req.SessionID {
		h.t.Fatalf("asked event %+v", e)
	}
	return asked, done
}

func (h *harness) replied(wantID string, want permission.ReplyKind) {
	h.t.Helper()
	e := h.next()
	r, ok := e.Properties.(permission.Replied)
	if e.Type != bus.PermissionReplied || !ok || r.RequestID != wantID || r.Reply != want {
		h.t.Fatalf("got %s %+v, want %s of %s with %s", e.Type, e.Properties, bus.PermissionReplied, wantID, want)
	}
}

func wait(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("permission.Ask did not return")
		return nil
	}
}

func gitReq(session, cmd string) permission.Request {
	return permission.Request{SessionID: session, Permission: "bash", Patterns: []string{cmd}, Always: []string{shellscan.AlwaysPattern(strings.Fields(cmd))},
		Tool: &permission.ToolRef{MessageID: "msg_1", CallID: "call_1"}}
}

func TestAskAllowAndDeny(t *testing.T) {
	h := newHarness(t, ":memory:", Options{})
	if err := h.svc.Ask(t.Context(), askRules, permission.Request{SessionID: "s", Permission: "bash", Patterns: []string{"ls -la", "echo hi"}}); err != nil {
		t.Fatalf("allowed request: %v", err)
	}
	err := h.svc.Ask(t.Context(), askRules, permission.Request{SessionID: "s", Permission: "bash", Patterns: []string{"git status", "rm -rf x"}})
	var denied *permission.DeniedError
	if !errors.As(err, &denied) || denied.Rule != askRules[2] || denied.Pattern != "rm -rf x" {
		t.Fatalf("denied request: %v", err)
	}
	if !strings.Contains(err.Error(), `"rm *"`) {
		t.Errorf("the error does not name the rule: %v", err)
	}
	h.none() // neither asked nor replied
}

func TestAskOnce(t *testing.T) {
	h := newHarness(t, ":memory:", Options{})
	asked, done := h.ask(t.Context(), askRules, gitReq("ses_1", "git commit -m x"))
	if asked.Permission != "bash" || asked.Patterns[0] != "git commit -m x" || asked.Tool.CallID != "call_1" {
		t.Fatalf("published request %+v", asked)
	}
	if p := h.svc.Pending(); len(p) != 1 || p[0].ID != asked.ID {
		t.Fatalf("Pending() = %+v", p)
	}
	if err := h.svc.Reply(t.Context(), asked.ID, permission.Reply{Kind: permission.ReplyOnce}); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, done); err != nil {
		t.Fatalf("permission.Ask after once: %v", err)
	}
	h.replied(asked.ID, permission.ReplyOnce)
	// Once approves nothing further.
	asked, done = h.ask(t.Context(), askRules, gitReq("ses_1", "git commit -m x"))
	if err := h.svc.Reply(t.Context(), asked.ID, permission.Reply{Kind: permission.ReplyReject}); err != nil {
		t.Fatal(err)
	}
	var rejected *permission.RejectedError
	if err := wait(t, done); !errors.As(err, &rejected) {
		t.Fatalf("permission.Ask after reject: %v", err)
	}
	if err := h.svc.Reply(t.Context(), asked.ID, permission.Reply{Kind: permission.ReplyOnce}); !errors.Is(err, permission.ErrUnknownRequest) {
		t.Fatalf("second reply: %v", err)
	}
}

func TestAskAlwaysSession(t *testing.T) {
	h := newHarness(t, ":memory:", Options{})
	asked, done := h.ask(t.Context(), askRules, gitReq("ses_1", "git commit -m x"))
	if err := h.svc.Reply(t.Context(), asked.ID, permission.Reply{Kind: permission.ReplyAlways}); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, done); err != nil {
		t.Fatal(err)
	}
	h.replied(asked.ID, permission.ReplyAlways)
	// The same session no longer asks for git commit, but still for git push.
	if err := h.svc.Ask(t.Context(), askRules, gitReq("ses_1", "git commit --amend")); err != nil {
		t.Fatalf("approved command: %v", err)
	}
	h.none()
	asked, done = h.ask(t.Context(), askRules, gitReq("ses_1", "git push"))
	_ = h.svc.Reply(t.Context(), asked.ID, permission.Reply{Kind: permission.ReplyOnce})
	_ = wait(t, done)
	h.replied(asked.ID, permission.ReplyOnce)
	// Another session still asks.
	asked, done = h.ask(t.Context(), askRules, gitReq("ses_2", "git commit -m y"))
	_ = h.svc.Reply(t.Context(), asked.ID, permission.Reply{Kind: permission.ReplyOnce})
	_ = wait(t, done)
	// The approval is saved for the session only.
	saved, err := h.st.ListApprovals(t.Context(), "", "")
	if err != nil || len(saved) != 1 || saved[0].Scope != "session" || saved[0].ScopeID != "ses_1" ||
		saved[0].Pattern != "git commit *" || saved[0].Permission != "bash" || !strings.Contains(saved[0].Origin, "git commit -m x") {
		t.Fatalf("saved approvals %+v, %v", saved, err)
	}
	// A config deny still wins over an approval.
	rules := append(permission.Ruleset{}, askRules...)
	rules = append(rules, permission.Rule{Permission: "bash", Pattern: "git commit --no-verify *", Action: permission.Deny})
	var denied *permission.DeniedError
	if err := h.svc.Ask(t.Context(), rules, gitReq("ses_1", "git commit --no-verify -m x")); !errors.As(err, &denied) {
		t.Fatalf("deny after approval: %v", err)
	}
}

func TestAskAlwaysProjectSurvivesRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "codeloop.db")
	func() {
		h := newHarness(t, path, Options{ProjectID: "prj_a"})
		asked, done := h.ask(t.Context(), askRules, gitReq("ses_1", "git commit -m x"))
		if err := h.svc.Reply(t.Context(), asked.ID, permission.Reply{Kind: permission.ReplyAlways, Scope: permission.ScopeProject}); err != nil {
			t.Fatal(err)
		}
		if err := wait(t, done); err != nil {
			t.Fatal(err)
		}
		h.replied(asked.ID, permission.ReplyAlways)
		asked, done = h.ask(t.Context(), askRules, gitReq("ses_1", "git push origin"))
		_ = h.svc.Reply(t.Context(), asked.ID, permission.Reply{Kind: permission.ReplyAlways, Scope: permission.ScopeGlobal})
		_ = wait(t, done)
		h.replied(asked.ID, permission.ReplyAlways)
		asked, done = h.ask(t.Context(), askRules, gitReq("ses_1", "git tag v1"))
		_ = h.svc.Reply(t.Context(), asked.ID, permission.Reply{Kind: permission.ReplyAlways}) // session
		_ = wait(t, done)
		h.st.Close()
	}()

	// A new process: a new store handle and a new service.
	h := newHarness(t, path, Options{ProjectID: "prj_a"})
	if err := h.svc.Ask(t.Context(), askRules, gitReq("ses_9", "git commit -m y")); err != nil {
		t.Fatalf("project approval after restart: %v", err)
	}
	if err := h.svc.Ask(t.Context(), askRules, gitReq("ses_9", "git push")); err != nil {
		t.Fatalf("global approval after restart: %v", err)
	}
	if err := h.svc.Ask(t.Context(), askRules, gitReq("ses_1", "git tag v2")); err != nil {
		t.Fatalf("session approval after restart, same session: %v", err)
	}
	h.none()
	asked, done := h.ask(t.Context(), askRules, gitReq("ses_9", "git tag v2"))
	_ = h.svc.Reply(t.Context(), asked.ID, permission.Reply{Kind: permission.ReplyReject})
	_ = wait(t, done)

	// Another project sees the global approval only.
	other := newHarness(t, path, Options{ProjectID: "prj_b"})
	if err := other.svc.Ask(t.Context(), askRules, gitReq("ses_9", "git push")); err != nil {
		t.Fatalf("global approval in another project: %v", err)
	}
	asked, done = other.ask(t.Context(), askRules, gitReq("ses_9", "git commit -m z"))
	_ = other.svc.Reply(t.Context(), asked.ID, permission.Reply{Kind: permission.ReplyOnce})
	_ = wait(t, done)
}

func TestAskRejectWithMessage(t *testing.T) {
	h := newHarness(t, ":memory:", Options{})
	asked, done := h.ask(t.Context(), askRules, gitReq("ses_1", "git push --force"))
	if err := h.svc.Reply(t.Context(), asked.ID, permission.Reply{Kind: permission.ReplyReject, Message: "push to a branch instead"}); err != nil {
		t.Fatal(err)
	}
	err := wait(t, done)
	var corrected *permission.CorrectedError
	if !errors.As(err, &corrected) || corrected.Message != "push to a branch instead" {
		t.Fatalf("permission.Ask after reject with message: %v", err)
	}
	if !strings.Contains(err.Error(), "push to a branch instead") {
		t.Errorf("the model does not see the correction: %v", err)
	}
	h.replied(asked.ID, permission.ReplyReject)
}

func TestAskRejectCascades(t *testing.T) {
	h := newHarness(t, ":memory:", Options{})
	a1, d1 := h.ask(t.Context(), askRules, gitReq("ses_1", "git push"))
	a2, d2 := h.ask(t.Context(), askRules, gitReq("ses_1", "git fetch"))
	a3, d3 := h.ask(t.Context(), askRules, gitReq("ses_2", "git push"))
	if p := h.svc.Pending(); len(p) != 3 || p[0].ID != a1.ID || p[2].ID != a3.ID {
		t.Fatalf("Pending() = %+v", p)
	}
	if err := h.svc.Reply(t.Context(), a1.ID, permission.Reply{Kind: permission.ReplyReject}); err != nil {
		t.Fatal(err)
	}
	var rejected *permission.RejectedError
	if err := wait(t, d1); !errors.As(err, &rejected) {
		t.Fatalf("first: %v", err)
	}
	if err := wait(t, d2); !errors.As(err, &rejected) {
		t.Fatalf("other request of the session: %v", err)
	}
	h.replied(a1.ID, permission.ReplyReject)
	h.replied(a2.ID, permission.ReplyReject)
	if p := h.svc.Pending(); len(p) != 1 || p[0].ID != a3.ID {
		t.Fatalf("another session's request went too: %+v", p)
	}
	_ = h.svc.Reply(t.Context(), a3.ID, permission.Reply{Kind: permission.ReplyOnce})
	if err := wait(t, d3); err != nil {
		t.Fatal(err)
	}
}

func TestAskAlwaysResolvesPending(t *testing.T) {
	h := newHarness(t, ":memory:", Options{})
	a1, d1 := h.ask(t.Context(), askRules, gitReq("ses_1", "git commit -m a"))
	a2, d2 := h.ask(t.Context(), askRules, gitReq("ses_1", "git commit -m b"))
	a3, d3 := h.ask(t.Context(), askRules, gitReq("ses_1", "git push"))
	a4, d4 := h.ask(t.Context(), askRules, gitReq("ses_2", "git commit -m c"))
	if err := h.svc.Reply(t.Context(), a1.ID, permission.Reply{Kind: permission.ReplyAlways}); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, d1); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, d2); err != nil {
		t.Fatalf("pending request that now passes: %v", err)
	}
	h.replied(a1.ID, permission.ReplyAlways)
	h.replied(a2.ID, permission.ReplyAlways)
	ids := []string{}
	for _, p := range h.svc.Pending() {
		ids = append(ids, p.ID)
	}
	if strings.Join(ids, ",") != a3.ID+","+a4.ID {
		t.Fatalf("still pending %v, want %s and %s", ids, a3.ID, a4.ID)
	}
	// A project approval also lets other sessions' requests through.
	if err := h.svc.Reply(t.Context(), a3.ID, permission.Reply{Kind: permission.ReplyAlways, Scope: permission.ScopeProject}); err != nil {
		t.Fatal(err)
	}
	_ = wait(t, d3)
	_ = h.svc.Reply(t.Context(), a4.ID, permission.Reply{Kind: permission.ReplyOnce})
	_ = wait(t, d4)
}

func TestAskContextCancel(t *testing.T) {
	h := newHarness(t, ":memory:", Options{})
	ctx, cancel := context.WithCancel(t.Context())
	asked, done := h.ask(ctx, askRules, gitReq("ses_1", "git push"))
	cancel()
	if err := wait(t, done); !errors.Is(err, context.Canceled) {
		t.Fatalf("permission.Ask after cancel: %v", err)
	}
	h.replied(asked.ID, permission.ReplyReject)
	if p := h.svc.Pending(); len(p) != 0 {
		t.Fatalf("Pending() after cancel = %+v", p)
	}
	if err := h.svc.Reply(t.Context(), asked.ID, permission.Reply{Kind: permission.ReplyOnce}); !errors.Is(err, permission.ErrUnknownRequest) {
		t.Fatalf("reply after cancel: %v", err)
	}
}

func TestAskClearSession(t *testing.T) {
	h := newHarness(t, ":memory:", Options{})
	asked, done := h.ask(t.Context(), askRules, gitReq("ses_1", "git push"))
	h.svc.ClearSession(t.Context(), "ses_1")
	var rejected *permission.RejectedError
	if err := wait(t, done); !errors.As(err, &rejected) {
		t.Fatalf("permission.Ask after ClearSession: %v", err)
	}
	h.replied(asked.ID, permission.ReplyReject)
}

func unanalysable(session string) permission.Request {
	a := shellscan.AnalyzeBash("x=touch; $x marker")
	return permission.Request{SessionID: session, Permission: "bash", Patterns: a.Patterns, Always: a.Always,
		Unanalysable: a.Unanalysable, Reason: a.Reason}
}

func TestAskAuto(t *testing.T) {
	h := newHarness(t, ":memory:", Options{AutoApprove: true, NonInteractive: true})
	if err := h.svc.Ask(t.Context(), askRules, gitReq("ses_1", "git push")); err != nil {
		t.Fatalf("auto-approved ask: %v", err)
	}
	e := h.next()
	if e.Type != bus.PermissionAsked {
		t.Fatalf("got %s", e.Type)
	}
	h.replied(e.Properties.(permission.Request).ID, permission.ReplyOnce)
	// Auto approval is "once": nothing is saved.
	if saved, _ := h.st.ListApprovals(t.Context(), "", ""); len(saved) != 0 {
		t.Fatalf("auto approval saved %+v", saved)
	}
	// Deny rules still deny.
	var denied *permission.DeniedError
	if err := h.svc.Ask(t.Context(), askRules, gitReq("ses_1", "rm -rf /")); !errors.As(err, &denied) {
		t.Fatalf("denied under auto: %v", err)
	}
	// A command that cannot be analysed is never approved automatically.
	err := h.svc.Ask(t.Context(), permission.Ruleset{{Permission: "*", Pattern: "*", Action: permission.Allow}}, unanalysable("ses_1"))
	var rejected *permission.RejectedError
	if !errors.As(err, &rejected) || !strings.Contains(err.Error(), "$x") {
		t.Fatalf("unanalysable under auto: %v", err)
	}
	// With a bash deny rule it is denied, with the reason.
	if err := h.svc.Ask(t.Context(), askRules, unanalysable("ses_1")); !errors.As(err, &denied) ||
		denied.Rule != askRules[2] || !strings.Contains(err.Error(), "only known when the command runs") {
		t.Fatalf("unanalysable with a deny rule: %v", err)
	}
}

func TestAskAutoInteractive(t *testing.T) {
	h := newHarness(t, ":memory:", Options{})
	h.svc.SetAutoApprove(true)
	if err := h.svc.Ask(t.Context(), askRules, gitReq("ses_1", "git push")); err != nil {
		t.Fatal(err)
	}
	h.next()
	h.next()
	// The user is asked about what cannot be analysed, even under auto.
	asked, done := h.ask(t.Context(), permission.Ruleset{{Permission: "*", Pattern: "*", Action: permission.Allow}}, unanalysable("ses_1"))
	if !asked.Unanalysable || asked.Reason == "" {
		t.Fatalf("published %+v", asked)
	}
	_ = h.svc.Reply(t.Context(), asked.ID, permission.Reply{Kind: permission.ReplyOnce})
	if err := wait(t, done); err != nil {
		t.Fatal(err)
	}
	h.replied(asked.ID, permission.ReplyOnce)
	// An always reply to it does not let a later one through unasked.
	asked, done = h.ask(t.Context(), permission.Ruleset{{Permission: "*", Pattern: "*", Action: permission.Allow}}, unanalysable("ses_1"))
	_ = h.svc.Reply(t.Context(), asked.ID, permission.Reply{Kind: permission.ReplyAlways})
	_ = wait(t, done)
	h.replied(asked.ID, permission.ReplyAlways)
	_, done = h.ask(t.Context(), permission.Ruleset{{Permission: "*", Pattern: "*", Action: permission.Allow}}, unanalysable("ses_1"))
	h.svc.ClearSession(t.Context(), "ses_1")
	_ = wait(t, done)
}

func TestAskNonInteractive(t *testing.T) {
	h := newHarness(t, ":memory:", Options{NonInteractive: true})
	err := h.svc.Ask(t.Context(), askRules, gitReq("ses_1", "git push"))
	var rejected *permission.RejectedError
	if !errors.As(err, &rejected) || rejected.Reason == "" {
		t.Fatalf("ask without anyone to answer: %v", err)
	}
	e := h.next()
	if req, ok := e.Properties.(permission.Request); e.Type != bus.PermissionAsked || !ok || req.Patterns[0] != "git push" {
		t.Fatalf("the caller cannot report the ask: %+v", e)
	}
	h.replied(e.Properties.(permission.Request).ID, permission.ReplyReject)
	if err := h.svc.Ask(t.Context(), askRules, gitReq("ses_1", "ls")); err != nil {
		t.Fatalf("allowed: %v", err)
	}
}

func TestReplyBadInput(t *testing.T) {
	h := newHarness(t, ":memory:", Options{})
	asked, done := h.ask(t.Context(), askRules, gitReq("ses_1", "git push"))
	if err := h.svc.Reply(t.Context(), asked.ID, permission.Reply{Kind: "maybe"}); err == nil {
		t.Fatal("a reply of unknown kind was accepted")
	}
	if err := h.svc.Reply(t.Context(), asked.ID, permission.Reply{Kind: permission.ReplyAlways, Scope: "galaxy"}); err == nil {
		t.Fatal("an unknown scope was accepted")
	}
	if len(h.svc.Pending()) != 1 {
		t.Fatal("a bad reply removed the request")
	}
	_ = h.svc.Reply(t.Context(), asked.ID, permission.Reply{Kind: permission.ReplyOnce})
	if err := wait(t, done); err != nil {
		t.Fatal(err)
	}
}

func TestAsker(t *testing.T) {
	h := newHarness(t, ":memory:", Options{})
	var a permission.Asker = h.svc.Asker(askRules)
	var denied *permission.DeniedError
	if err := a.Ask(t.Context(), permission.Request{SessionID: "s", Permission: "bash", Patterns: []string{"rm x"}}); !errors.As(err, &denied) {
		t.Fatalf("Asker: %v", err)
	}
}
