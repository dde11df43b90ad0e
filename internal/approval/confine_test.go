package approval

import (
	"errors"
	"testing"

	"github.com/codeloop/codeloop/internal/permission"
)

// TestAskConfinedAndConfirm checks the two sandbox flags: a confined
// command the rules would ask about runs without asking, a confined
// command a rule denies stays denied, and a request to confirm is asked
// even where the rules allow it, and still denied where they deny it.
func TestAskConfinedAndConfirm(t *testing.T) {
	h := newHarness(t, ":memory:", Options{})
	confined := gitReq("ses_1", "git push")
	confined.Confined = true
	if err := h.svc.Ask(t.Context(), askRules, confined); err != nil {
		t.Fatalf("a confined command the rules ask about: %v", err)
	}
	h.none()

	deniedReq := permission.Request{SessionID: "ses_1", Permission: "bash", Patterns: []string{"rm -rf x"}, Confined: true}
	var denied *permission.DeniedError
	if err := h.svc.Ask(t.Context(), askRules, deniedReq); !errors.As(err, &denied) {
		t.Fatalf("a confined command a rule denies: %v", err)
	}
	unknown := permission.Request{SessionID: "ses_1", Permission: "bash", Patterns: []string{"$x"}, Unanalysable: true, Reason: "dynamic", Confined: true}
	if err := h.svc.Ask(t.Context(), askRules, unknown); !errors.As(err, &denied) {
		t.Fatalf("an unanalysable confined command under a deny rule: %v", err)
	}

	confirm := gitReq("ses_1", "ls -la")
	confirm.Patterns = []string{"ls -la"}
	confirm.Confirm = true
	asked, done := h.ask(t.Context(), askRules, confirm)
	if asked.Patterns[0] != "ls -la" || !asked.Confirm {
		t.Fatalf("asked %+v", asked)
	}
	if err := h.svc.Reply(t.Context(), asked.ID, permission.Reply{Kind: permission.ReplyOnce}); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, done); err != nil {
		t.Fatalf("confirmed request: %v", err)
	}
	h.replied(asked.ID, permission.ReplyOnce)
	confirmDenied := permission.Request{SessionID: "ses_1", Permission: "bash", Patterns: []string{"rm -rf x"}, Confirm: true}
	if err := h.svc.Ask(t.Context(), askRules, confirmDenied); !errors.As(err, &denied) {
		t.Fatalf("a request to confirm that a rule denies: %v", err)
	}
}
