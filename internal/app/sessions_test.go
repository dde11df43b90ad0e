package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/session"
	"github.com/codeloop/codeloop/internal/store"
	"github.com/codeloop/codeloop/internal/tool"
)

// openSessionsApp opens an app over a fresh project with a real store and
// no model catalog to fetch.
func openSessionsApp(t *testing.T) *App {
	t.Helper()
	a, _ := openCatalogApp(t, t.TempDir(), "http://127.0.0.1:1", map[string]string{"CODELOOP_DISABLE_MODELS_FETCH": "1"})
	t.Cleanup(func() { _ = a.Close() })
	return a
}

// TestMissingSession calls every use case that names a session with one
// that does not exist: each fails before doing anything, with an error
// that wraps store.ErrNotFound and names the session.
func TestMissingSession(t *testing.T) {
	t.Parallel()
	a := openSessionsApp(t)
	ctx := context.Background()
	const id = "ses_missing"
	text := []message.Part{session.TextPart("hello")}
	tests := []struct {
		name string
		call func() error
	}{
		{"Session", func() error { _, err := a.Session(ctx, id); return err }},
		{"CreateSession under it", func() error { _, err := a.CreateSession(ctx, NewSession{ParentID: id}); return err }},
		{"UpdateSession", func() error { _, err := a.UpdateSession(ctx, id, SessionChange{}); return err }},
		{"DeleteSession", func() error { return a.DeleteSession(ctx, id) }},
		{"ForkSession", func() error { _, err := a.ForkSession(ctx, id, ""); return err }},
		{"Children", func() error { _, err := a.Children(ctx, id); return err }},
		{"Messages", func() error { _, err := a.Messages(ctx, id, "", 0); return err }},
		{"Messages page", func() error { _, err := a.Messages(ctx, id, "", 5); return err }},
		{"Abort", func() error { return a.Abort(ctx, id) }},
		{"Todos", func() error { _, err := a.Todos(ctx, id); return err }},
		{"SessionDiff", func() error { _, err := a.SessionDiff(ctx, id, ""); return err }},
		{"Prompt", func() error { _, err := a.Prompt(ctx, id, PromptInput{Parts: text}); return err }},
		{"Prompt with nothing to send", func() error { _, err := a.Prompt(ctx, id, PromptInput{}); return err }},
		{"RunCommand", func() error {
			_, err := a.RunCommand(ctx, id, PromptInput{}, "compact", "", func(func(context.Context)) bool { return true })
			return err
		}},
		{"Shell", func() error {
			_, err := a.Shell(ctx, ctx, id, ShellRequest{Command: "touch ran"})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			var ns *NoSessionError
			if !errors.Is(err, store.ErrNotFound) || !errors.As(err, &ns) || ns.ID != id {
				t.Fatalf("error %v, want a missing session %s", err, id)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(a.Dir, "ran")); err == nil {
		t.Error("the shell command ran for a missing session")
	}
}

// TestNotPending answers requests that are not waiting: the errors wrap
// store.ErrNotFound, or permission.ErrUnknownRequest for permissions;
// malformed permission replies are refused first.
func TestNotPending(t *testing.T) {
	t.Parallel()
	a := openSessionsApp(t)
	ctx := context.Background()
	tests := []struct {
		name string
		call func() error
		want error  // wrapped, when set
		text string // in the error, when set
	}{
		{name: "question reply", call: func() error { return a.ReplyQuestion(ctx, "que_1", [][]string{{"yes"}}) }, want: store.ErrNotFound},
		{name: "question reject", call: func() error { return a.RejectQuestion(ctx, "que_1") }, want: store.ErrNotFound},
		{name: "permission", call: func() error {
			return a.ReplyPermission(ctx, "per_1", permission.Reply{Kind: permission.ReplyOnce})
		}, want: permission.ErrUnknownRequest},
		{name: "permission reply kind", call: func() error {
			return a.ReplyPermission(ctx, "per_1", permission.Reply{Kind: "sometimes"})
		}, text: `permission reply "sometimes"`},
		{name: "permission scope", call: func() error {
			return a.ReplyPermission(ctx, "per_1", permission.Reply{Kind: permission.ReplyAlways, Scope: "galaxy"})
		}, text: `permission scope "galaxy"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if err == nil || (tt.want != nil && !errors.Is(err, tt.want)) || !strings.Contains(err.Error(), tt.text) {
				t.Fatalf("error %v, want %v %q", err, tt.want, tt.text)
			}
			if tt.want == nil && errors.Is(err, permission.ErrUnknownRequest) {
				t.Fatalf("error %v: the malformed reply reached the service", err)
			}
		})
	}
}

// TestListSessions lists sessions by title, limit and overview; a
// sub-agent's session is left out of the roots.
func TestListSessions(t *testing.T) {
	t.Parallel()
	a := openSessionsApp(t)
	ctx := context.Background()
	ids := map[string]string{}
	for _, title := range []string{"Fix the parser", "Write docs", "parser tests"} {
		s, err := a.CreateSession(ctx, NewSession{Title: title})
		if err != nil {
			t.Fatal(err)
		}
		ids[title] = s.ID
	}
	if _, err := a.CreateSession(ctx, NewSession{ParentID: ids["Write docs"], Title: "sub-agent on the parser"}); err != nil {
		t.Fatal(err)
	}
	putMessages(t, a, ids["Write docs"], 2)
	tests := []struct {
		name  string
		q     SessionQuery
		want  []string // titles, in any order
		count int      // how many, when want is not given
		msgs  int      // messages of "Write docs", when listed
	}{
		{name: "roots", q: SessionQuery{Roots: true}, want: []string{"Fix the parser", "Write docs", "parser tests"}},
		{name: "all", q: SessionQuery{}, count: 4},
		{name: "search in any case", q: SessionQuery{Roots: true, Search: "PARSER"}, want: []string{"Fix the parser", "parser tests"}},
		{name: "search and limit", q: SessionQuery{Roots: true, Search: "parser", Limit: 1}, count: 1},
		{name: "limit", q: SessionQuery{Roots: true, Limit: 2}, count: 2},
		{name: "no overview unasked", q: SessionQuery{Roots: true, Search: "docs"}, want: []string{"Write docs"}},
		{name: "overview", q: SessionQuery{Roots: true, Search: "docs", Details: true}, want: []string{"Write docs"}, msgs: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list, err := a.ListSessions(ctx, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			var titles []string
			for _, s := range list {
				titles = append(titles, s.Info.Title)
				if tt.q.Search != "" && !strings.Contains(strings.ToLower(s.Info.Title), strings.ToLower(tt.q.Search)) {
					t.Errorf("%q listed for %q", s.Info.Title, tt.q.Search)
				}
				if s.Info.Title == "Write docs" && s.Overview.Messages != tt.msgs {
					t.Errorf("%d messages in the overview, want %d", s.Overview.Messages, tt.msgs)
				}
			}
			if tt.want != nil {
				slices.Sort(titles)
				want := slices.Sorted(slices.Values(tt.want))
				if !slices.Equal(titles, want) {
					t.Errorf("listed %q, want %q", titles, want)
				}
			} else if len(titles) != tt.count {
				t.Errorf("listed %q, want %d", titles, tt.count)
			}
		})
	}
}

// putMessages stores n user messages in a session, msg_1 to msg_n.
func putMessages(t *testing.T, a *App, sessionID string, n int) {
	t.Helper()
	for i := 1; i <= n; i++ {
		info := message.Info{ID: fmt.Sprintf("msg_%d", i), SessionID: sessionID, Role: message.RoleUser,
			Time: message.Time{Created: int64(i)}}
		if err := a.Sessions.PutMessage(context.Background(), info); err != nil {
			t.Fatal(err)
		}
	}
}

// TestMessages pages through a session's messages and reads one, which
// another session does not hold.
func TestMessages(t *testing.T) {
	t.Parallel()
	a := openSessionsApp(t)
	ctx := context.Background()
	s, err := a.CreateSession(ctx, NewSession{})
	if err != nil {
		t.Fatal(err)
	}
	putMessages(t, a, s.ID, 5)
	tests := []struct {
		before string
		limit  int
		want   []string
	}{
		{want: []string{"msg_1", "msg_2", "msg_3", "msg_4", "msg_5"}},
		{before: "msg_3", want: []string{"msg_1", "msg_2"}},
		{limit: 2, want: []string{"msg_4", "msg_5"}},
		{before: "msg_4", limit: 2, want: []string{"msg_2", "msg_3"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("before %q limit %d", tt.before, tt.limit), func(t *testing.T) {
			msgs, err := a.Messages(ctx, s.ID, tt.before, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range msgs {
				got = append(got, m.Info.ID)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("messages %q, want %q", got, tt.want)
			}
		})
	}
	if m, err := a.Message(ctx, s.ID, "msg_2"); err != nil || m.Info.ID != "msg_2" {
		t.Errorf("Message: %v, %v", m.Info.ID, err)
	}
	other, err := a.CreateSession(ctx, NewSession{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Message(ctx, other.ID, "msg_2"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("another session's message: error %v, want not found", err)
	}
}

// TestSessionRules creates and changes sessions with rules and sandbox
// modes: rules become floor rules, added once; a sandbox mode only
// tightens; malformed ones are refused before anything is stored.
func TestSessionRules(t *testing.T) {
	t.Parallel()
	a := openSessionsApp(t)
	ctx := context.Background()
	deny := permission.Rule{Permission: "bash", Pattern: "rm *", Action: permission.Deny}
	floor := deny
	floor.Floor, floor.Layer = true, sessionLayer
	title := func(s string) *string { return &s }
	s, err := a.CreateSession(ctx, NewSession{Rules: permission.Ruleset{deny}, Sandbox: "workspace-write"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Permission, permission.Ruleset{floor}) || s.Sandbox != "workspace-write" {
		t.Fatalf("created with %+v, sandbox %q", s.Permission, s.Sandbox)
	}
	tests := []struct {
		name    string
		change  SessionChange
		err     string // in the error, when refused
		sandbox string
		title   string
		rules   int
	}{
		{name: "the same rule again", change: SessionChange{Rules: permission.Ruleset{deny}}, sandbox: "workspace-write", rules: 1},
		{name: "looser sandbox ignored", change: SessionChange{Sandbox: "off"}, sandbox: "workspace-write", rules: 1},
		{name: "stricter sandbox", change: SessionChange{Sandbox: "read-only"}, sandbox: "read-only", rules: 1},
		{name: "renamed, trimmed", change: SessionChange{Title: title("  Parser  ")}, sandbox: "read-only", title: "Parser", rules: 1},
		{name: "another rule", change: SessionChange{Rules: permission.Ruleset{{Permission: "edit", Pattern: "*.md", Action: permission.Ask}}},
			sandbox: "read-only", title: "Parser", rules: 2},
		{name: "empty title", change: SessionChange{Title: title(" ")}, err: "title cannot be empty"},
		{name: "unknown action", change: SessionChange{Rules: permission.Ruleset{{Permission: "bash", Pattern: "*", Action: "maybe"}}},
			err: `action "maybe"`},
		{name: "no pattern", change: SessionChange{Rules: permission.Ruleset{{Permission: "bash", Action: permission.Deny}}},
			err: "permission and pattern are required"},
		{name: "unknown sandbox", change: SessionChange{Sandbox: "jail"}, err: `sandbox mode "jail"`},
	}
	for _, tt := range tests { // in order: each changes the session further
		got, err := a.UpdateSession(ctx, s.ID, tt.change)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got.Sandbox != tt.sandbox || len(got.Permission) != tt.rules || (tt.title != "" && got.Title != tt.title) {
			t.Errorf("%s: sandbox %q, rules %+v, title %q", tt.name, got.Sandbox, got.Permission, got.Title)
		}
		for _, r := range got.Permission {
			if !r.Floor || r.Layer != sessionLayer {
				t.Errorf("%s: rule %+v is not a floor rule", tt.name, r)
			}
		}
	}
	for _, in := range []NewSession{{Sandbox: "jail"}, {Rules: permission.Ruleset{{Permission: "bash", Action: permission.Deny}}}} {
		if _, err := a.CreateSession(ctx, in); err == nil {
			t.Errorf("created a session with %+v", in)
		}
	}
	if list, err := a.ListSessions(ctx, SessionQuery{}); err != nil || len(list) != 1 {
		t.Errorf("%d sessions stored (%v), want 1", len(list), err)
	}
}

// TestFindFiles finds files and directories with the front ends'
// defaults: files and directories, 100 at most unless a limit in 1..1000
// is asked for.
func TestFindFiles(t *testing.T) {
	t.Parallel()
	a := openSessionsApp(t)
	files := map[string]string{}
	for i := range 120 {
		files[fmt.Sprintf("sub/f%03d.txt", i)] = "x"
	}
	writeFiles(t, a.Worktree, files)
	tests := []struct {
		name  string
		q     FileQuery
		count int
		files bool // files listed
		dirs  bool // directories listed
	}{
		{name: "defaults", q: FileQuery{}, count: 100, files: true, dirs: true},
		{name: "files", q: FileQuery{Type: "file", Limit: 5}, count: 5, files: true},
		{name: "directories", q: FileQuery{Type: "directory", Limit: 5}, count: 1, dirs: true},
		{name: "directories though NoDirs", q: FileQuery{Type: "directory", NoDirs: true}, count: 1, dirs: true},
		{name: "no directories", q: FileQuery{NoDirs: true, Limit: 200}, count: 120, files: true},
		{name: "limit above 1000", q: FileQuery{NoDirs: true, Limit: 5000}, count: 100, files: true},
		{name: "query", q: FileQuery{Query: "f119", Type: "file"}, count: 1, files: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := a.FindFiles(context.Background(), tt.q)
			if err != nil {
				t.Fatal(err)
			}
			var files, dirs bool
			for _, p := range got {
				if strings.HasSuffix(p, "/") {
					dirs = true
				} else {
					files = true
				}
			}
			if len(got) != tt.count || files != tt.files || dirs != tt.dirs {
				t.Errorf("found %d (files %v, directories %v), want %d (%v, %v): %q", len(got), files, dirs, tt.count, tt.files, tt.dirs, got)
			}
		})
	}
}

// TestDeleteSessionRemovesTemp checks that deleting a session removes the
// temporary directory its sandboxed commands wrote, and its children's,
// and leaves another session's.
func TestDeleteSessionRemovesTemp(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // os.TempDir, where the sandbox puts them
	a := openSessionsApp(t)
	ctx := context.Background()
	var dirs []string
	var ids []string
	for _, parent := range []int{-1, 0, -1} { // a root, its child, another root
		in := NewSession{}
		if parent >= 0 {
			in.ParentID = ids[parent]
		}
		s, err := a.CreateSession(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		dir := tool.SessionTempDir("", s.ID)
		if !strings.HasPrefix(dir, tmp) {
			t.Fatalf("the session's temporary directory %s is not under TMPDIR %s", dir, tmp)
		}
		if err := os.MkdirAll(filepath.Join(dir, "out"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "out", "log"), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		ids, dirs = append(ids, s.ID), append(dirs, dir)
	}
	if err := a.DeleteSession(ctx, ids[0]); err != nil {
		t.Fatal(err)
	}
	for i, dir := range dirs {
		_, err := os.Stat(dir)
		if gone := os.IsNotExist(err); gone != (i < 2) {
			t.Errorf("session %d's temporary directory: removed %v (%v), want %v", i, gone, err, i < 2)
		}
	}
}
