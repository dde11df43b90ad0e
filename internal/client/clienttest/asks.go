package clienttest

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/client"
)

// askBash is a config that asks before every shell command.
const askBash = `"permission": {"bash": "ask"}`

// bashScript calls bash with command and then answers text.
func bashScript(callID, command, text string) string {
	return "step\ncall " + callID + ` bash {"command":"` + command + "\"}\nfinish tool-calls\nstep\ntext " + text + "\nfinish stop\n"
}

// asked waits for the first permission request and checks it is listed
// as pending.
func asked(t *testing.T, c client.Client, ev client.Events) client.PermissionRequest {
	t.Helper()
	got := until(t, ev, func(e client.Event) bool { _, ok := e.(client.PermissionAskedEvent); return ok })
	req := got[len(got)-1].(client.PermissionAskedEvent).PermissionRequest
	pending := must(c.Permissions(ctxFor(t)))(t)
	if !slices.ContainsFunc(pending, func(r client.PermissionRequest) bool { return r.ID == req.ID }) {
		t.Errorf("request %s is not listed as pending: %+v", req.ID, pending)
	}
	return req
}

// permissionOnce approves one shell command.
func (s suite) permissionOnce(t *testing.T) {
	c, p := s.start(t, bashScript("call_1", "echo hi > out.txt", "Done."), askBash, nil)
	ctx := ctxFor(t)
	sess := must(c.CreateSession(ctx, client.CreateSessionInput{}))(t)
	ev := must(c.Subscribe(ctx, client.EventFilter{}))(t)
	defer ev.Close()
	must(c.Prompt(ctx, sess.ID, client.PromptInput{Parts: []client.PartInput{client.TextInput("write out.txt")}}))(t)
	req := asked(t, c, ev)
	if req.SessionID != sess.ID || req.Permission != "bash" || !slices.Contains(req.Patterns, "echo hi > out.txt") ||
		req.Tool == nil || req.Tool.CallID != "call_1" {
		t.Errorf("request %+v", req)
	}
	if _, err := os.Stat(filepath.Join(p.Dir, "out.txt")); err == nil {
		t.Fatal("the command ran before it was approved")
	}
	if err := c.ReplyPermission(ctx, req.ID, client.PermissionReply{Reply: "maybe"}); err == nil {
		t.Error("the reply maybe was accepted")
	}
	if err := c.ReplyPermission(ctx, req.ID, client.PermissionReply{Reply: client.ReplyOnce}); err != nil {
		t.Fatal(err)
	}
	got := until(t, ev, idle(sess.ID))
	if !slices.ContainsFunc(got, func(e client.Event) bool {
		r, ok := e.(client.PermissionRepliedEvent)
		return ok && r.RequestID == req.ID && r.Reply == client.ReplyOnce
	}) {
		t.Error("no permission.replied event for the request")
	}
	if b, err := os.ReadFile(filepath.Join(p.Dir, "out.txt")); err != nil || string(b) != "hi\n" {
		t.Errorf("out.txt: %q, %v", b, err)
	}
	if pending := must(c.Permissions(ctx))(t); len(pending) != 0 {
		t.Errorf("still pending: %+v", pending)
	}
	wantErr(t, "a second reply", c.ReplyPermission(ctx, req.ID, client.PermissionReply{Reply: client.ReplyOnce}), client.ErrNotFound)
}

// permissionReject refuses a command with a correction the model reads.
func (s suite) permissionReject(t *testing.T) {
	c, p := s.start(t, bashScript("call_1", "rm -rf build", "I will not remove it."), askBash, nil)
	ctx := ctxFor(t)
	sess := must(c.CreateSession(ctx, client.CreateSessionInput{}))(t)
	ev := must(c.Subscribe(ctx, client.EventFilter{}))(t)
	defer ev.Close()
	must(c.Prompt(ctx, sess.ID, client.PromptInput{Parts: []client.PartInput{client.TextInput("clean up")}}))(t)
	req := asked(t, c, ev)
	if err := c.ReplyPermission(ctx, req.ID, client.PermissionReply{Reply: client.ReplyReject, Message: "keep the build directory"}); err != nil {
		t.Fatal(err)
	}
	until(t, ev, idle(sess.ID))
	reqs := p.Model.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "keep the build directory") {
		t.Errorf("the model was not told the correction (%d requests)", len(reqs))
	}
}

// permissionAlways approves a command for the whole project: the same
// command in another session runs without asking.
func (s suite) permissionAlways(t *testing.T) {
	script := bashScript("call_1", "echo one > a.txt", "First.") + bashScript("call_2", "echo two > b.txt", "Second.")
	c, p := s.start(t, script, askBash, nil)
	ctx := ctxFor(t)
	first := must(c.CreateSession(ctx, client.CreateSessionInput{}))(t)
	ev := must(c.Subscribe(ctx, client.EventFilter{}))(t)
	defer ev.Close()
	must(c.Prompt(ctx, first.ID, client.PromptInput{Parts: []client.PartInput{client.TextInput("one")}}))(t)
	req := asked(t, c, ev)
	if !slices.Contains(req.Always, "echo *") {
		t.Errorf("always patterns %v, want echo *", req.Always)
	}
	if err := c.ReplyPermission(ctx, req.ID, client.PermissionReply{Reply: client.ReplyAlways, Scope: "everywhere"}); err == nil {
		t.Error("the scope everywhere was accepted")
	}
	if err := c.ReplyPermission(ctx, req.ID, client.PermissionReply{Reply: client.ReplyAlways, Scope: client.ScopeProject}); err != nil {
		t.Fatal(err)
	}
	until(t, ev, idle(first.ID))
	second := must(c.CreateSession(ctx, client.CreateSessionInput{}))(t)
	must(c.Prompt(ctx, second.ID, client.PromptInput{Parts: []client.PartInput{client.TextInput("two")}}))(t)
	got := until(t, ev, idle(second.ID))
	for _, e := range got {
		if a, ok := e.(client.PermissionAskedEvent); ok {
			t.Errorf("asked again after an always reply for the project: %+v", a.PermissionRequest)
		}
	}
	for _, f := range []string{"a.txt", "b.txt"} {
		if _, err := os.Stat(filepath.Join(p.Dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// question answers the question tool.
func (s suite) question(t *testing.T) {
	script := `step
call call_q question {"questions":[{"question":"Which colour?","header":"Colour","options":[{"label":"Red","description":"warm"},{"label":"Blue","description":"cool"}]}]}
finish tool-calls
step
text Blue it is.
finish stop
`
	c, p := s.start(t, script, "", nil)
	ctx := ctxFor(t)
	sess := must(c.CreateSession(ctx, client.CreateSessionInput{}))(t)
	ev := must(c.Subscribe(ctx, client.EventFilter{SessionID: sess.ID}))(t)
	defer ev.Close()
	must(c.Prompt(ctx, sess.ID, client.PromptInput{Parts: []client.PartInput{client.TextInput("pick")}}))(t)
	got := until(t, ev, func(e client.Event) bool { _, ok := e.(client.QuestionAskedEvent); return ok })
	q := got[len(got)-1].(client.QuestionAskedEvent).QuestionRequest
	if len(q.Questions) != 1 || q.Questions[0].Header != "Colour" || len(q.Questions[0].Options) != 2 || q.Tool == nil {
		t.Fatalf("question %+v", q)
	}
	pending := must(c.Questions(ctx))(t)
	if len(pending) != 1 || pending[0].ID != q.ID {
		t.Errorf("pending questions %+v", pending)
	}
	if err := c.ReplyQuestion(ctx, q.ID, [][]string{{"Blue"}}); err != nil {
		t.Fatal(err)
	}
	got = until(t, ev, idle(sess.ID))
	if !slices.ContainsFunc(got, func(e client.Event) bool {
		r, ok := e.(client.QuestionRepliedEvent)
		return ok && r.RequestID == q.ID
	}) {
		t.Error("no question.replied event")
	}
	reqs := p.Model.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), `Which colour?\"=\"Blue`) {
		t.Errorf("the model was not given the answer (%d requests)", len(reqs))
	}
	if err := c.RejectQuestion(ctx, q.ID); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("rejecting an answered question: %v", err)
	}
}
