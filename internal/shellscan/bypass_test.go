package shellscan

import (
	"errors"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"github.com/codeloop/codeloop/internal/permission"
)

// bypassRules deny git push and touch and allow npm, as a user who lets
// the model use npm but never push would write them.
const bypassRules = `{"bash": {"*": "allow", "npm *": "allow", "git push *": "deny", "touch *": "deny"}}`

func bypassRuleset(t *testing.T) permission.Ruleset {
	t.Helper()
	return rulesOf(t, bypassRules)
}

// TestBypassForms decides, under bypassRules with auto-approval, the
// forms that once stepped around a rule: git's own options before its
// command, npm exec's shell text and program, and a comment ending in a
// backslash. Each must be refused, for the reason given; the ordinary
// forms stay allowed.
func TestBypassForms(t *testing.T) {
	svc, _ := corpusService(t)
	rules := bypassRuleset(t)
	const push, touch, unanalysable = `pattern: "git push *"`, `pattern: "touch *"`, "cannot be analysed"
	cases := []struct {
		cmd      string
		decision string
		want     string // in the error, for deny
	}{
		// git's options before the command.
		{"git push", "deny", push},
		{"git --no-pager push", "deny", push},
		{"git -P push origin main", "deny", push},
		{"git -p push", "deny", push},
		{"git --paginate push", "deny", push},
		{"git -C . push", "deny", push},
		{"git -C . -C sub push --force", "deny", push},
		{"git -c user.name=a push", "deny", push},
		{"git -c color.ui=never -c push.default=current push", "deny", push},
		{"git --git-dir=.git push", "deny", push},
		{"git --git-dir .git push", "deny", push},
		{"git --work-tree . push", "deny", push},
		{"git --work-tree=. --git-dir=.git push", "deny", push},
		{"git --namespace=x push", "deny", push},
		{"git --namespace x push", "deny", push},
		{"git --bare push", "deny", push},
		{"git --no-replace-objects --literal-pathspecs --no-optional-locks push", "deny", push},
		{"git --attr-source HEAD push", "deny", push},
		{"git --shallow-file x push", "deny", push},
		{"git --config-env user.name=USER push", "deny", push},
		{"git --super-prefix x/ push", "deny", push},
		{"git --config-env=user.name=USER push", "deny", push},
		{"git --no-pager push > out.txt 2>&1", "deny", push},
		{"sudo git --no-pager push", "deny", push},
		{"env GIT_TRACE=1 git -C . push", "deny", push},
		{"bash -c 'git --no-pager push'", "deny", push},
		{"git -c alias.p=push p", "deny", push},
		{"git -c alias.p='!git --no-pager push' p", "deny", push},
		{"git --exec-path=./bin push", "deny", push},
		{"git --exec-path=./bin status", "deny", unanalysable},
		{"git -c core.pager='touch marker' log", "deny", touch},
		{"git -c core.sshCommand='touch marker' fetch", "deny", touch},
		{"git -c core.editor='touch marker' commit", "deny", touch},
		{"git -c core.fsmonitor='touch marker' status", "deny", touch},
		{"git -c credential.helper='!touch marker' fetch", "deny", touch},
		{"git -c diff.external='touch marker' diff", "deny", touch},
		{"git -c core.hooksPath=./h commit -m x", "deny", unanalysable},
		{"git -c include.path=./x.cfg status", "deny", unanalysable},
		{"git --no-pager log -1", "allow", ""},
		{"git -C sub status --short", "allow", ""},
		{"git -C . stash push", "allow", ""},
		{"git --no-pager log --grep push", "allow", ""},

		// npm exec, npx and the other package runners.
		{"npx -c 'touch marker'", "deny", touch},
		{"npm exec -c 'touch marker'", "deny", touch},
		{"npm x -c 'touch marker'", "deny", touch},
		{"npm exe -c 'touch marker'", "deny", touch},
		{"npm exec --call='touch marker'", "deny", touch},
		{"npm exec --call 'touch marker'", "deny", touch},
		{"npm --call='touch marker' exec", "deny", touch},
		{"npm -c 'touch marker' exec", "deny", touch},
		{"npm exec -yc 'touch marker'", "deny", touch},
		{"npx --c='touch marker'", "deny", touch},
		{"npx --yes --package=left-pad -c 'touch marker'", "deny", touch},
		{"npx -p left-pad -c 'touch marker'", "deny", touch},
		{"npx -c 'echo ok && git --no-pager push'", "deny", push},
		{"npm exec touch marker", "deny", touch},
		{"npm exec -- touch marker", "deny", touch},
		{"npm exec --registry https://r.example touch marker", "deny", touch},
		{"npm -ws exec touch marker", "deny", touch},
		{"npx touch marker", "deny", touch},
		{"npx --yes git push", "deny", push},
		{"npm_config_call='touch marker' npm exec", "deny", touch},
		{"NPM_CONFIG_CALL='ls' npm exec", "deny", unanalysable},
		{"c='touch marker'; npx -c \"$c\"", "deny", unanalysable},
		{"npm $cmd -c 'touch marker'", "deny", unanalysable},
		{"npm exec", "deny", unanalysable},
		{"npm exec --script-shell=./x -c ls", "deny", unanalysable},
		{"pnpm exec touch marker", "deny", touch},
		{"pnpm -c exec 'echo ok; touch marker'", "deny", touch},
		{"pnpm --shell-mode exec 'touch marker'", "deny", touch},
		{"pnpm dlx -c 'touch marker'", "deny", touch},
		{"pnpx touch marker", "deny", touch},
		{"pnpm -C sub --filter web exec touch marker", "deny", touch},
		{"pnpm --some-option value exec touch marker", "deny", touch},
		{"yarn --cwd sub exec touch marker", "deny", touch},
		{"yarn --some-option value exec touch marker", "deny", touch},
		{"yarn exec touch marker", "deny", touch},
		{"yarn dlx touch marker", "deny", touch},
		{"bunx touch marker", "deny", touch},
		{"bun x touch marker", "deny", touch},
		{"npm config set call 'touch marker'", "deny", touch},
		{"npm set call='touch marker'", "deny", touch},
		{"npm config set script-shell ./x", "deny", unanalysable},
		{"npm config set registry https://r.example", "allow", ""},
		{"npm install", "allow", ""},
		{"npm install -D typescript", "allow", ""},
		{"npm install $pkgs", "allow", ""},
		{"npm run build -- -c x", "allow", ""},
		{"npx -c 'ls -la'", "allow", ""},
		{"npx --yes prettier --check .", "allow", ""},
		{"pnpm install && yarn add left-pad && bun run dev", "allow", ""},
		{"pnpm -r run build && pnpm --filter web test", "allow", ""},

		// A comment ending in a backslash.
		{"echo ok # note \\\ntouch marker", "deny", unanalysable},
		{"echo ok # note \\\r\ntouch marker", "deny", unanalysable},
		{"echo ok # note \\\ngit push", "deny", unanalysable},
		{"npm exec -c 'echo ok # note \\\ntouch marker'", "deny", unanalysable},
		{"echo ok # note \\", "allow", ""},
		{"echo ok # C:\\dir\\file\nls", "allow", ""},
	}
	for _, c := range cases {
		a := AnalyzeBash(c.cmd)
		decision, err := decideBash(t.Context(), svc, rules, a)
		if decision != c.decision {
			t.Errorf("%q: %s (%v), want %s\npatterns %q, reason %q", c.cmd, decision, err, c.decision, a.Patterns, a.Reason)
			continue
		}
		if c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%q: the refusal does not say %q: %v", c.cmd, c.want, err)
		}
		if c.want == unanalysable && !a.Unanalysable {
			t.Errorf("%q: not unanalysable", c.cmd)
		}
	}
}

// TestCommentBackslashParser pins how mvdan.cc/sh parses a comment ending
// in a backslash: as a line continuation that joins the next line to the
// statement before the comment, where bash ends the comment at the newline
// and runs the next line. hiddenLine exists because of this. A version of
// the parser that reads it as bash does makes this test fail: the check
// may then be revisited (it stays correct either way).
func TestCommentBackslashParser(t *testing.T) {
	src := "echo ok # note \\\ntouch x"
	f, err := syntax.NewParser(syntax.KeepComments(true)).Parse(strings.NewReader(src), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Stmts) != 1 {
		t.Fatalf("%d statements, the parser now splits the text as bash does", len(f.Stmts))
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok {
		t.Fatalf("the statement is a %T", f.Stmts[0].Cmd)
	}
	var words []string
	for _, w := range call.Args {
		words = append(words, w.Lit())
	}
	if got := strings.Join(words, " "); got != "echo ok touch x" {
		t.Errorf("the statement runs %q, want the joined %q", got, "echo ok touch x")
	}
	var comments []string
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.Comment); ok {
			comments = append(comments, c.Text)
		}
		return true
	})
	if len(comments) != 1 || comments[0] != " note \\\n" {
		t.Errorf("comments %q, want one ending in the backslash and newline", comments)
	}
	if c, hidden := hiddenLine(src, syntax.LangBash); !hidden || c != "# note \\" {
		t.Errorf("hiddenLine = %q, %v", c, hidden)
	}
}

// TestUnanalysableRefusal checks that a command refused because it cannot
// be analysed says so, with the reason, and does not present an unrelated
// deny rule as the cause, while a command a rule names is refused naming
// the rule.
func TestUnanalysableRefusal(t *testing.T) {
	rules := bypassRuleset(t)
	svc, _ := corpusService(t)
	_, err := decideBash(t.Context(), svc, rules, AnalyzeBash("echo ok # note \\\ntouch marker"))
	var denied *permission.DeniedError
	if !errors.As(err, &denied) || !denied.Unanalysable {
		t.Fatalf("error %v, want an unanalysable *DeniedError", err)
	}
	msg := err.Error()
	for _, want := range []string{"cannot be analysed", "a comment ending in a backslash", "remove the backslash", "rewrite the command"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the message lacks %q: %s", want, msg)
		}
	}
	for _, unwanted := range []string{"git push *", "touch *", "denied by the rule"} {
		if strings.Contains(msg, unwanted) {
			t.Errorf("the message names %q: %s", unwanted, msg)
		}
	}
	_, err = decideBash(t.Context(), svc, rules, AnalyzeBash("git --no-pager push"))
	if !errors.As(err, &denied) || denied.Unanalysable || !strings.Contains(err.Error(), `denied by the rule`) ||
		!strings.Contains(err.Error(), `"git push"`) {
		t.Errorf("git --no-pager push: %v, want a refusal by the rule git push *", err)
	}
	// With no deny rule, the ask that auto-approval may not answer is
	// rejected, saying why.
	_, err = decideBash(t.Context(), svc, permission.Ruleset{{Permission: "bash", Pattern: "*", Action: permission.Allow}},
		AnalyzeBash("echo ok # note \\\ntouch marker"))
	var rejected *permission.RejectedError
	if !errors.As(err, &rejected) || !strings.Contains(err.Error(), "cannot be analysed") ||
		!strings.Contains(err.Error(), "never approved automatically") {
		t.Errorf("error %v, want a rejection saying the command cannot be analysed", err)
	}
}
