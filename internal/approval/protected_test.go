package approval

import (
	"errors"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/permission"
)

func protectedReq(session, path string) permission.Request {
	return permission.Request{SessionID: session, Permission: "edit", Patterns: []string{path}, Protected: true,
		Reason: path + " is protected", Tool: &permission.ToolRef{MessageID: "msg_1", CallID: "call_1"}}
}

// allowAll is a catch-all allow rule.
var allowAll = permission.Ruleset{{Permission: "*", Pattern: "*", Action: permission.Allow}}

func TestAskProtected(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		auto bool // SetAutoApprove after start
	}{
		{name: "interactive"},
		{name: "auto in the interface", auto: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, ":memory:", tt.opts)
			h.svc.SetAutoApprove(tt.auto)
			// A catch-all allow rule still asks.
			asked, done := h.ask(t.Context(), allowAll, protectedReq("ses_1", ".git/config"))
			if !asked.Protected {
				t.Fatalf("published %+v", asked)
			}
			// "always" approves this request only, and saves nothing.
			if err := h.svc.Reply(t.Context(), asked.ID, permission.Reply{Kind: permission.ReplyAlways, Scope: permission.ScopeProject}); err != nil {
				t.Fatal(err)
			}
			if err := wait(t, done); err != nil {
				t.Fatalf("approved protected request: %v", err)
			}
			h.replied(asked.ID, permission.ReplyOnce)
			if saved, _ := h.st.ListApprovals(t.Context(), "", ""); len(saved) != 0 {
				t.Fatalf("saved approvals %+v", saved)
			}
			asked, done = h.ask(t.Context(), allowAll, protectedReq("ses_1", ".git/config"))
			_ = h.svc.Reply(t.Context(), asked.ID, permission.Reply{Kind: permission.ReplyReject})
			var rejected *permission.RejectedError
			if err := wait(t, done); !errors.As(err, &rejected) {
				t.Fatalf("rejected protected request: %v", err)
			}
			h.replied(asked.ID, permission.ReplyReject)
		})
	}
}

func TestAskProtectedNotPassedByApproval(t *testing.T) {
	h := newHarness(t, ":memory:", Options{})
	rules := permission.Ruleset{{Permission: "*", Pattern: "*", Action: permission.Ask}}
	prot, dp := h.ask(t.Context(), rules, protectedReq("ses_1", ".git/config"))
	plain, d := h.ask(t.Context(), rules, permission.Request{SessionID: "ses_1", Permission: "edit", Patterns: []string{"main.go"}, Always: []string{"*"}})
	if err := h.svc.Reply(t.Context(), plain.ID, permission.Reply{Kind: permission.ReplyAlways}); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, d); err != nil {
		t.Fatal(err)
	}
	h.replied(plain.ID, permission.ReplyAlways)
	if p := h.svc.Pending(); len(p) != 1 || p[0].ID != prot.ID {
		t.Fatalf("pending after an always reply to another request: %+v", p)
	}
	h.svc.ClearSession(t.Context(), "ses_1")
	_ = wait(t, dp)
}

func TestAskProtectedAutoNonInteractive(t *testing.T) {
	h := newHarness(t, ":memory:", Options{AutoApprove: true, NonInteractive: true})
	err := h.svc.Ask(t.Context(), allowAll, protectedReq("ses_1", ".codeloop/x"))
	var rejected *permission.RejectedError
	if !errors.As(err, &rejected) || !strings.Contains(err.Error(), "user's approval") ||
		!strings.Contains(err.Error(), ".codeloop/x is protected") {
		t.Fatalf("protected request under --auto: %v", err)
	}
	// Deny rules still refuse it first.
	rules := append(permission.Ruleset{}, allowAll...)
	rules = append(rules, permission.Rule{Permission: "edit", Pattern: ".git/*", Action: permission.Deny})
	var denied *permission.DeniedError
	if err := h.svc.Ask(t.Context(), rules, protectedReq("ses_1", ".git/config")); !errors.As(err, &denied) {
		t.Fatalf("denied protected request: %v", err)
	}
	// Confined does not let it through either.
	req := protectedReq("ses_1", ".git/config")
	req.Confined = true
	if err := h.svc.Ask(t.Context(), allowAll, req); !errors.As(err, &rejected) {
		t.Fatalf("confined protected request: %v", err)
	}
}
