package clienttest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/client"
)

// shellCall returns the bash call of a shell command's answer.
func shellCall(t *testing.T, c client.Client, sessionID, answerID string) client.Part {
	t.Helper()
	msgs := must(c.Messages(ctxFor(t), sessionID, client.MessagesOptions{}))(t)
	if len(msgs) != 2 {
		t.Fatalf("%d messages, want the user's and the answer", len(msgs))
	}
	if u := msgs[0]; u.Info.Role != client.RoleUser || len(u.Parts) != 1 || !u.Parts[0].Synthetic {
		t.Errorf("user message %+v", u)
	}
	a := msgs[1]
	if a.Info.ID != answerID || a.Info.Role != client.RoleAssistant || a.Info.ParentID != msgs[0].Info.ID {
		t.Fatalf("answer %+v", a)
	}
	// The call, between the step's start and its patch when snapshots
	// keep what the command changed.
	var calls []client.Part
	for _, p := range a.Parts {
		switch p.Type {
		case client.PartTool:
			calls = append(calls, p)
		case client.PartStepStart, client.PartPatch:
		default:
			t.Errorf("answer part %+v", p)
		}
	}
	if len(calls) != 1 || calls[0].Tool != "bash" || calls[0].State == nil {
		t.Fatalf("answer parts %+v, want one bash call", a.Parts)
	}
	return calls[0]
}

// shell runs a command and records its output and exit status.
func (s suite) shell(t *testing.T) {
	c, _ := s.start(t, "", "", nil)
	ctx := ctxFor(t)
	sess := must(c.CreateSession(ctx, client.CreateSessionInput{}))(t)
	ev := must(c.Subscribe(ctx, client.EventFilter{SessionID: sess.ID, Types: []string{client.TypePartUpdated}}))(t)
	defer ev.Close()
	if _, err := c.Shell(ctx, sess.ID, client.ShellInput{Command: "  "}); err == nil {
		t.Error("an empty command was accepted")
	}
	id := must(c.Shell(ctx, sess.ID, client.ShellInput{Command: "echo hello; echo oops >&2; pwd; exit 3"}))(t)
	p := shellCall(t, c, sess.ID, id)
	st := p.State
	if st.Status != client.ToolCompleted || !strings.Contains(st.Output, "hello\n") || !strings.Contains(st.Output, "oops\n") {
		t.Errorf("state %+v", st)
	}
	path := must(c.Path(ctx))(t)
	if !strings.Contains(st.Output, path.Directory) {
		t.Errorf("the command did not run in %s: %q", path.Directory, st.Output)
	}
	if fmt.Sprint(st.Metadata["exit"]) != "3" {
		t.Errorf("exit status %v, want 3", st.Metadata["exit"])
	}
	got := until(t, ev, func(e client.Event) bool {
		u := e.(client.PartUpdatedEvent)
		return u.Part.Type == client.PartTool && u.Part.State.Status == client.ToolCompleted
	})
	if running := got[len(got)-2].(client.PartUpdatedEvent); running.Part.State == nil || running.Part.State.Status != client.ToolRunning {
		t.Errorf("the call was not published running first: %+v", running.Part)
	}
}

// shellAbort stops a running command and records the abort.
func (s suite) shellAbort(t *testing.T) {
	c, _ := s.start(t, "", "", nil)
	ctx := ctxFor(t)
	sess := must(c.CreateSession(ctx, client.CreateSessionInput{}))(t)
	ev := must(c.Subscribe(ctx, client.EventFilter{SessionID: sess.ID, Types: []string{client.TypePartUpdated}}))(t)
	defer ev.Close()
	type result struct {
		id  string
		err error
	}
	done := make(chan result, 1)
	go func() {
		id, err := c.Shell(ctx, sess.ID, client.ShellInput{Command: "echo started; sleep 30"})
		done <- result{id, err}
	}()
	until(t, ev, func(e client.Event) bool {
		u := e.(client.PartUpdatedEvent)
		return u.Part.State != nil && u.Part.State.Status == client.ToolRunning && strings.Contains(fmt.Sprint(u.Part.State.Metadata["output"]), "started")
	})
	if st := must(c.Status(ctx))(t); st[sess.ID].Type != client.StatusBusy {
		t.Errorf("status while the command runs %+v, want busy", st)
	}
	start := time.Now()
	if err := c.Abort(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	var r result
	select {
	case r = <-done:
	case <-time.After(Timeout):
		t.Fatal("the command outlived its abort")
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the command took %s to stop", d)
	}
	p := shellCall(t, c, sess.ID, r.id)
	if !strings.Contains(p.State.Output, "started") || !strings.Contains(p.State.Output, "User aborted the command") {
		t.Errorf("output %q", p.State.Output)
	}
}

// shellBusy: a command cannot run while the session's loop does.
func (s suite) shellBusy(t *testing.T) {
	c, p := s.start(t, "step\ntext Thinking\nhang\n", "", nil)
	ctx := ctxFor(t)
	sess := must(c.CreateSession(ctx, client.CreateSessionInput{}))(t)
	ev := must(c.Subscribe(ctx, client.EventFilter{SessionID: sess.ID}))(t)
	defer ev.Close()
	must(c.Prompt(ctx, sess.ID, client.PromptInput{Parts: []client.PartInput{client.TextInput("go")}}))(t)
	select {
	case <-p.Model.Hung():
	case <-ctx.Done():
		t.Fatal("the model never reached its hang")
	}
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err := c.Shell(sctx, sess.ID, client.ShellInput{Command: "echo no"})
	wantErr(t, "a command while the loop runs", err, client.ErrBusy)
	if err := c.Abort(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	until(t, ev, idle(sess.ID))
}

// shellThenPrompt: a prompt sent while the user's command runs is taken,
// and answered once the command has ended, with its output in the history
// the model reads.
func (s suite) shellThenPrompt(t *testing.T) {
	c, p := s.start(t, "step\ntext Seen.\nfinish stop\n", "", nil)
	ctx := ctxFor(t)
	sess := must(c.CreateSession(ctx, client.CreateSessionInput{}))(t)
	ev := must(c.Subscribe(ctx, client.EventFilter{SessionID: sess.ID}))(t)
	defer ev.Close()
	marker := p.Dir + "/started"
	shellDone := make(chan error, 1)
	go func() {
		_, err := c.Shell(ctx, sess.ID, client.ShellInput{Command: "touch " + marker + "; sleep 1; echo the-command-output"})
		shellDone <- err
	}()
	for deadline := time.Now().Add(Timeout); ; {
		if _, err := c.Messages(ctx, sess.ID, client.MessagesOptions{}); err == nil {
			if st := must(c.Status(ctx))(t); st[sess.ID].Type == client.StatusBusy {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the shell command never made the session busy")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := c.Prompt(ctx, sess.ID, client.PromptInput{Parts: []client.PartInput{client.TextInput("what did it print?")}}); err != nil {
		t.Fatalf("a prompt while the command runs: %v, want it queued", err)
	}
	if err := <-shellDone; err != nil {
		t.Fatal(err)
	}
	until(t, ev, func(e client.Event) bool {
		te, ok := e.(client.TurnEndedEvent)
		return ok && te.SessionID == sess.ID
	})
	reqs := p.Model.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "the-command-output") {
		t.Fatalf("%d model requests; the first should hold the command's output:\n%v", len(reqs), reqs)
	}
	msgs := must(c.Messages(ctx, sess.ID, client.MessagesOptions{}))(t)
	if len(msgs) != 4 || msgs[2].Info.Role != client.RoleUser || msgs[3].Info.Role != client.RoleAssistant {
		t.Errorf("%d messages; want the command's two, then the prompt and its answer", len(msgs))
	}
}

// shellRevert: undoing a shell command takes back the files it changed,
// and redoing it brings them back.
func (s suite) shellRevert(t *testing.T) {
	c, p := s.start(t, "", "", map[string]string{"keep.txt": "kept\n"})
	ctx := ctxFor(t)
	sess := must(c.CreateSession(ctx, client.CreateSessionInput{}))(t)
	made, keep := p.Dir+"/made.txt", p.Dir+"/keep.txt"
	must(c.Shell(ctx, sess.ID, client.ShellInput{Command: "echo made > made.txt; echo changed > keep.txt"}))(t)
	read := func(path string) string { b, _ := os.ReadFile(path); return string(b) }
	if read(made) != "made\n" || read(keep) != "changed\n" {
		t.Fatalf("the command did not run: made %q keep %q", read(made), read(keep))
	}
	msgs := must(c.Messages(ctx, sess.ID, client.MessagesOptions{}))(t)
	must(c.Revert(ctx, sess.ID, client.RevertInput{MessageID: msgs[0].Info.ID}))(t)
	if _, err := os.Stat(made); err == nil || read(keep) != "kept\n" {
		t.Errorf("after undo: made.txt exists %v, keep.txt %q", err == nil, read(keep))
	}
	must(c.Unrevert(ctx, sess.ID))(t)
	if read(made) != "made\n" || read(keep) != "changed\n" {
		t.Errorf("after redo: made %q keep %q", read(made), read(keep))
	}
}
