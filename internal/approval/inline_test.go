package approval

import (
	"errors"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/shellscan"
)

// inlineReq is the request the bash tool makes for cmd.
func inlineReq(session, cmd string) permission.Request {
	a := shellscan.AnalyzeBash(cmd)
	return permission.Request{SessionID: session, Permission: "bash", Patterns: a.Patterns, Always: a.Always,
		Unanalysable: a.Unanalysable, Reason: a.Reason, Inline: inlines(a.Inline)}
}

// inlines are the analysis's inline code as a request carries it.
func inlines(ins []shellscan.Inline) []permission.Inline {
	var out []permission.Inline
	for _, in := range ins {
		out = append(out, permission.Inline(in))
	}
	return out
}

// TestAskInlineRules decides commands that run code given to an
// interpreter under rulesets, with auto-approval off a terminal. The code
// cannot be checked, so it matches every rule of bash: any deny rule
// denies it; where the user's own rules allow everything it runs; a rule
// that names the interpreter lets it through; otherwise, as under the
// defaults, it is asked (and so rejected here). Scripts run by name are
// judged by the rules as before.
func TestAskInlineRules(t *testing.T) {
	allowAll := permission.Rule{Permission: "*", Pattern: "*", Action: permission.Allow, Default: true} // as in Defaults
	userAll := permission.Rule{Permission: "*", Pattern: "*", Action: permission.Allow}                 // "permission": "allow"
	tests := []struct {
		name  string
		rules permission.Ruleset
		cmd   string
		want  string // allow, ask or deny
	}{
		{"catch-all asks", permission.Ruleset{allowAll}, "python3 -c 'print(1)'", "ask"},
		{"the user's bash allow-all runs it", permission.Ruleset{allowAll, {Permission: "bash", Pattern: "*", Action: permission.Allow}}, "perl -e 1", "allow"},
		{"the user's allow-all runs it", permission.Ruleset{allowAll, userAll}, "python3 -c 'print(1)'", "allow"},
		{"any ask rule of bash asks", permission.Ruleset{allowAll, userAll, {Permission: "bash", Pattern: "git push *", Action: permission.Ask}},
			"python3 -c 1", "ask"},
		{"a floor ask asks", permission.Ruleset{allowAll, userAll, {Permission: "bash", Pattern: "*", Action: permission.Ask, Floor: true}},
			"python3 -c 1", "ask"},
		{"any deny rule of bash denies", permission.Ruleset{allowAll, userAll, {Permission: "bash", Pattern: "rm *", Action: permission.Deny}},
			"python3 -c 1", "deny"},
		{"interpreter rule allows", permission.Ruleset{allowAll, {Permission: "bash", Pattern: "python3 *", Action: permission.Allow}},
			"python3 -c 'print(1)'", "allow"},
		{"option rule allows", permission.Ruleset{allowAll, {Permission: "bash", Pattern: "python3 -c *", Action: permission.Allow}},
			"python3 -c 'print(1)'", "allow"},
		{"glob on the name allows", permission.Ruleset{allowAll, {Permission: "bash", Pattern: "node*", Action: permission.Allow}},
			"node -e 1", "allow"},
		{"rule for another interpreter asks", permission.Ruleset{allowAll, {Permission: "bash", Pattern: "python3 *", Action: permission.Allow}},
			"python -c 'print(1)'", "ask"},
		{"prefix glob does not name it", permission.Ruleset{allowAll, {Permission: "bash", Pattern: "py*", Action: permission.Allow}},
			"python3 -c 1", "ask"},
		{"later catch-all overrides the named rule", permission.Ruleset{{Permission: "bash", Pattern: "python3 *", Action: permission.Allow}, allowAll},
			"python3 -c 1", "ask"},
		{"named deny denies", permission.Ruleset{allowAll, {Permission: "bash", Pattern: "python3 *", Action: permission.Deny}},
			"python3 -c 1", "deny"},
		{"a deny rule denies even beside a named allow", permission.Ruleset{allowAll, {Permission: "bash", Pattern: "rm *", Action: permission.Deny},
			{Permission: "bash", Pattern: "ruby *", Action: permission.Allow}}, "ruby -e 'p 1'", "allow"},
		{"heredoc asks", permission.Ruleset{allowAll}, "python3 - <<'EOF'\nprint(1)\nEOF", "ask"},
		{"through a wrapper asks", permission.Ruleset{allowAll}, "sudo -u nobody perl -e 1", "ask"},
		{"a named rule allows it through a wrapper", permission.Ruleset{allowAll, {Permission: "bash", Pattern: "perl *", Action: permission.Allow}},
			"nice perl -e 1", "allow"},
		{"each interpreter needs its rule", permission.Ruleset{allowAll, {Permission: "bash", Pattern: "perl *", Action: permission.Allow}},
			"perl -e 1 && node -e 1", "ask"},
		{"script allowed", permission.Ruleset{allowAll}, "python3 script.py", "allow"},
		{"module allowed", permission.Ruleset{allowAll}, "python3 -m pytest -q", "allow"},
		{"version allowed", permission.Ruleset{allowAll}, "node --version", "allow"},
		{"ordinary command allowed", permission.Ruleset{allowAll}, "go test ./...", "allow"},
		{"ordinary wrapper allowed", permission.Ruleset{allowAll}, "timeout 60 go test ./...", "allow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := NewService(nil, nil, Options{AutoApprove: true, NonInteractive: true})
			err := svc.Ask(t.Context(), tt.rules, inlineReq("ses_1", tt.cmd))
			got := "allow"
			var denied *permission.DeniedError
			var rejected *permission.RejectedError
			switch {
			case errors.As(err, &denied):
				got = "deny"
			case errors.As(err, &rejected):
				got = "ask"
				if !strings.Contains(rejected.Reason, "rule that names the interpreter") {
					t.Errorf("the rejection does not say how to allow the code: %v", err)
				}
			case err != nil:
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("%q: %s (%v), want %s", tt.cmd, got, err, tt.want)
			}
		})
	}
}

// TestAskInlineAlways checks the interactive flow: inline code is asked
// even under auto-approval, an "always" reply approves the interpreter's
// code from then on (its always pattern names it), and a confined command
// is not asked.
func TestAskInlineAlways(t *testing.T) {
	h := newHarness(t, ":memory:", Options{})
	h.svc.SetAutoApprove(true)
	rules := permission.Ruleset{{Permission: "*", Pattern: "*", Action: permission.Allow, Default: true}}
	asked, done := h.ask(t.Context(), rules, inlineReq("ses_1", "python3 -c 'print(1)'"))
	if len(asked.Inline) != 1 || asked.Inline[0].Program != "python3" {
		t.Fatalf("published %+v", asked)
	}
	// A second request waits too; the always reply to the first frees it.
	second, done2 := h.ask(t.Context(), rules, inlineReq("ses_1", "python3 -c 'print(2)'"))
	if err := h.svc.Reply(t.Context(), asked.ID, permission.Reply{Kind: permission.ReplyAlways}); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, done); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, done2); err != nil {
		t.Fatalf("the pending request was not freed by the approval: %v", err)
	}
	h.replied(asked.ID, permission.ReplyAlways)
	h.replied(second.ID, permission.ReplyAlways)
	if err := h.svc.Ask(t.Context(), rules, inlineReq("ses_1", "python3 -c 'print(3)'")); err != nil {
		t.Fatalf("approved interpreter: %v", err)
	}
	h.none()
	// Another interpreter is still asked.
	other, done3 := h.ask(t.Context(), rules, inlineReq("ses_1", "perl -e 1"))
	if err := h.svc.Reply(t.Context(), other.ID, permission.Reply{Kind: permission.ReplyReject}); err != nil {
		t.Fatal(err)
	}
	var rejected *permission.RejectedError
	if err := wait(t, done3); !errors.As(err, &rejected) {
		t.Fatalf("rejected: %v", err)
	}
	h.replied(other.ID, permission.ReplyReject)
	// A command confined by the sandbox with auto-approval is not asked.
	req := inlineReq("ses_2", "ruby -e 'p 1'")
	req.Confined = true
	if err := h.svc.Ask(t.Context(), rules, req); err != nil {
		t.Fatalf("confined: %v", err)
	}
	h.none()
}
