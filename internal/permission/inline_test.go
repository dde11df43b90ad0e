package permission

import (
	"errors"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/shellscan"
)

// inlineReq is the request the bash tool makes for cmd.
func inlineReq(session, cmd string) Request {
	a := shellscan.AnalyzeBash(cmd)
	return Request{SessionID: session, Permission: "bash", Patterns: a.Patterns, Always: a.Always,
		Unanalysable: a.Unanalysable, Reason: a.Reason, Inline: inlines(a.Inline)}
}

// inlines are the analysis's inline code as a request carries it.
func inlines(ins []shellscan.Inline) []Inline {
	var out []Inline
	for _, in := range ins {
		out = append(out, Inline(in))
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
	allowAll := Rule{Permission: "*", Pattern: "*", Action: Allow, Default: true} // as in Defaults
	userAll := Rule{Permission: "*", Pattern: "*", Action: Allow}                 // "permission": "allow"
	tests := []struct {
		name  string
		rules Ruleset
		cmd   string
		want  string // allow, ask or deny
	}{
		{"catch-all asks", Ruleset{allowAll}, "python3 -c 'print(1)'", "ask"},
		{"the user's bash allow-all runs it", Ruleset{allowAll, {Permission: "bash", Pattern: "*", Action: Allow}}, "perl -e 1", "allow"},
		{"the user's allow-all runs it", Ruleset{allowAll, userAll}, "python3 -c 'print(1)'", "allow"},
		{"any ask rule of bash asks", Ruleset{allowAll, userAll, {Permission: "bash", Pattern: "git push *", Action: Ask}},
			"python3 -c 1", "ask"},
		{"a floor ask asks", Ruleset{allowAll, userAll, {Permission: "bash", Pattern: "*", Action: Ask, Floor: true}},
			"python3 -c 1", "ask"},
		{"any deny rule of bash denies", Ruleset{allowAll, userAll, {Permission: "bash", Pattern: "rm *", Action: Deny}},
			"python3 -c 1", "deny"},
		{"interpreter rule allows", Ruleset{allowAll, {Permission: "bash", Pattern: "python3 *", Action: Allow}},
			"python3 -c 'print(1)'", "allow"},
		{"option rule allows", Ruleset{allowAll, {Permission: "bash", Pattern: "python3 -c *", Action: Allow}},
			"python3 -c 'print(1)'", "allow"},
		{"glob on the name allows", Ruleset{allowAll, {Permission: "bash", Pattern: "node*", Action: Allow}},
			"node -e 1", "allow"},
		{"rule for another interpreter asks", Ruleset{allowAll, {Permission: "bash", Pattern: "python3 *", Action: Allow}},
			"python -c 'print(1)'", "ask"},
		{"prefix glob does not name it", Ruleset{allowAll, {Permission: "bash", Pattern: "py*", Action: Allow}},
			"python3 -c 1", "ask"},
		{"later catch-all overrides the named rule", Ruleset{{Permission: "bash", Pattern: "python3 *", Action: Allow}, allowAll},
			"python3 -c 1", "ask"},
		{"named deny denies", Ruleset{allowAll, {Permission: "bash", Pattern: "python3 *", Action: Deny}},
			"python3 -c 1", "deny"},
		{"a deny rule denies even beside a named allow", Ruleset{allowAll, {Permission: "bash", Pattern: "rm *", Action: Deny},
			{Permission: "bash", Pattern: "ruby *", Action: Allow}}, "ruby -e 'p 1'", "allow"},
		{"heredoc asks", Ruleset{allowAll}, "python3 - <<'EOF'\nprint(1)\nEOF", "ask"},
		{"through a wrapper asks", Ruleset{allowAll}, "sudo -u nobody perl -e 1", "ask"},
		{"a named rule allows it through a wrapper", Ruleset{allowAll, {Permission: "bash", Pattern: "perl *", Action: Allow}},
			"nice perl -e 1", "allow"},
		{"each interpreter needs its rule", Ruleset{allowAll, {Permission: "bash", Pattern: "perl *", Action: Allow}},
			"perl -e 1 && node -e 1", "ask"},
		{"script allowed", Ruleset{allowAll}, "python3 script.py", "allow"},
		{"module allowed", Ruleset{allowAll}, "python3 -m pytest -q", "allow"},
		{"version allowed", Ruleset{allowAll}, "node --version", "allow"},
		{"ordinary command allowed", Ruleset{allowAll}, "go test ./...", "allow"},
		{"ordinary wrapper allowed", Ruleset{allowAll}, "timeout 60 go test ./...", "allow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := NewService(nil, nil, Options{AutoApprove: true, NonInteractive: true})
			err := svc.Ask(t.Context(), tt.rules, inlineReq("ses_1", tt.cmd))
			got := "allow"
			var denied *DeniedError
			var rejected *RejectedError
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
	rules := Ruleset{{Permission: "*", Pattern: "*", Action: Allow, Default: true}}
	asked, done := h.ask(t.Context(), rules, inlineReq("ses_1", "python3 -c 'print(1)'"))
	if len(asked.Inline) != 1 || asked.Inline[0].Program != "python3" {
		t.Fatalf("published %+v", asked)
	}
	// A second request waits too; the always reply to the first frees it.
	second, done2 := h.ask(t.Context(), rules, inlineReq("ses_1", "python3 -c 'print(2)'"))
	if err := h.svc.Reply(t.Context(), asked.ID, Reply{Kind: ReplyAlways}); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, done); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, done2); err != nil {
		t.Fatalf("the pending request was not freed by the approval: %v", err)
	}
	h.replied(asked.ID, ReplyAlways)
	h.replied(second.ID, ReplyAlways)
	if err := h.svc.Ask(t.Context(), rules, inlineReq("ses_1", "python3 -c 'print(3)'")); err != nil {
		t.Fatalf("approved interpreter: %v", err)
	}
	h.none()
	// Another interpreter is still asked.
	other, done3 := h.ask(t.Context(), rules, inlineReq("ses_1", "perl -e 1"))
	if err := h.svc.Reply(t.Context(), other.ID, Reply{Kind: ReplyReject}); err != nil {
		t.Fatal(err)
	}
	var rejected *RejectedError
	if err := wait(t, done3); !errors.As(err, &rejected) {
		t.Fatalf("rejected: %v", err)
	}
	h.replied(other.ID, ReplyReject)
	// A command confined by the sandbox with auto-approval is not asked.
	req := inlineReq("ses_2", "ruby -e 'p 1'")
	req.Confined = true
	if err := h.svc.Ask(t.Context(), rules, req); err != nil {
		t.Fatalf("confined: %v", err)
	}
	h.none()
}
