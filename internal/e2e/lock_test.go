package e2e

import (
	"bytes"
	"context"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestTwoRunsOneSession runs a second `codeloop run -s ID` while a first
// one is answering the same session: the second must not start a loop of
// its own; the first answers both messages, the second waits, says so, and
// prints the answer to its message.
func TestTwoRunsOneSession(t *testing.T) {
	p := newProject(t, `
step
text Hello there.
finish stop input=10 output=2
step
text Working on the first question
sleep 1500ms
text  and done with it.
finish stop input=20 output=5
step
text The answer to the second question.
finish stop input=30 output=5
`, nil)
	if _, stderr, code := p.run("run", "say hello"); code != 0 {
		t.Fatalf("first run: %d %s", code, stderr)
	}
	id := p.sessions()[0]

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	first := p.command(ctx, "run", "-s", id, "first question")
	var out1, err1 bytes.Buffer
	first.Stdout, first.Stderr = &out1, &err1
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	// Start the second run while the first streams its slow answer.
	for deadline := time.Now().Add(30 * time.Second); len(p.model.Requests()) < 2; {
		if time.Now().After(deadline) {
			t.Fatal("the first run never asked the model")
		}
		time.Sleep(5 * time.Millisecond)
	}
	stdout, stderr, code := p.run("run", "-s", id, "second question")
	if err := first.Wait(); err != nil {
		t.Fatalf("first run: %v\n%s", err, err1.String())
	}
	if code != 0 {
		t.Fatalf("second run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if n := len(p.model.Requests()); n != 3 {
		t.Errorf("the model was asked %d times; one loop answering both messages asks it 3 times", n)
	}
	if !strings.Contains(stderr, "is answering this session") {
		t.Errorf("the second run did not say it waits for the first:\n%s", stderr)
	}
	if !strings.Contains(stdout, "The answer to the second question.") {
		t.Errorf("the second run did not print its answer:\n%s", stdout)
	}
	ex := p.exportSession(id)
	answers := 0
	for _, m := range ex.Messages {
		if m.Info.Role == "assistant" {
			answers++
		}
	}
	if answers != 3 {
		t.Errorf("%d assistant messages stored, want 3 (no duplicate replies)", answers)
	}
}

// TestSessionLockReleasedOnKill kills a run that holds a session's loop
// with SIGKILL: the next run on the session must not wait for it.
func TestSessionLockReleasedOnKill(t *testing.T) {
	p := newProject(t, `
step
text Hello there.
finish stop input=10 output=2
step
text A slow answer
sleep 30s
text  never finished.
finish stop input=20 output=5
step
text Still here.
finish stop input=30 output=5
`, nil)
	if _, stderr, code := p.run("run", "say hello"); code != 0 {
		t.Fatalf("first run: %d %s", code, stderr)
	}
	id := p.sessions()[0]
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	slow := p.command(ctx, "run", "-s", id, "take your time")
	if err := slow.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); len(p.model.Requests()) < 2; {
		if time.Now().After(deadline) {
			t.Fatal("the slow run never asked the model")
		}
		time.Sleep(5 * time.Millisecond)
	}
	_ = slow.Process.Signal(syscall.SIGKILL)
	_ = slow.Wait()
	stdout, stderr, code := p.run("run", "-s", id, "are you there")
	if code != 0 || !strings.Contains(stdout, "Still here.") {
		t.Fatalf("the run after the kill: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if strings.Contains(stderr, "is answering this session") {
		t.Errorf("the run waited for a killed process:\n%s", stderr)
	}
}
