package e2e

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/waitfor"
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
	waitfor.Until(t, "the first run to ask the model", func() bool { return len(p.model.Requests()) >= 2 })
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
	waitfor.Until(t, "the slow run to ask the model", func() bool { return len(p.model.Requests()) >= 2 })
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

// TestTwoContinuesDuringToolCall runs `codeloop run -c` while another
// `run -c` on the same session is inside a tool call: the second message
// is stored while the tool runs and answered by the first process's loop
// after it; the history is in order and the tool ran once.
func TestTwoContinuesDuringToolCall(t *testing.T) {
	p := newProject(t, `
step
text Hello there.
finish stop input=10 output=2
step
call call_1 bash {"command":"touch started; while [ ! -f go ]; do sleep 0.02; done; echo once >> ran.txt","description":"wait for go"}
finish tool-calls input=20 output=5
step
text Both questions answered.
finish stop input=30 output=5
`, nil)
	if _, stderr, code := p.run("run", "say hello"); code != 0 {
		t.Fatalf("first run: %d %s", code, stderr)
	}
	id := p.sessions()[0]

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	first := p.command(ctx, "run", "--auto", "-c", "first question")
	var out1, err1 bytes.Buffer
	first.Stdout, first.Stderr = &out1, &err1
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	waitFile(t, filepath.Join(p.dir, "started"))

	// The second run: its message is stored while the tool runs; it says it
	// waits once it finds the first process answering.
	second := p.command(ctx, "run", "--auto", "-c", "second question")
	var out2 bytes.Buffer
	second.Stdout = &out2
	errPipe, err := second.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	waiting := make(chan struct{})
	var err2 strings.Builder
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		sc := bufio.NewScanner(errPipe)
		said := false
		for sc.Scan() {
			err2.WriteString(sc.Text() + "\n")
			if !said && strings.Contains(sc.Text(), "is answering this session") {
				said = true
				close(waiting)
			}
		}
		if !said {
			close(waiting)
		}
	}()
	<-waiting
	if err := os.WriteFile(filepath.Join(p.dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := first.Wait(); err != nil {
		t.Fatalf("first run: %v\n%s", err, err1.String())
	}
	<-readDone
	if err := second.Wait(); err != nil {
		t.Fatalf("second run: %v\n%s\n%s", err, out2.String(), err2.String())
	}
	if !strings.Contains(err2.String(), "is answering this session") {
		t.Errorf("the second run did not wait for the first:\n%s", err2.String())
	}
	if got := p.read("ran.txt"); got != "once\n" {
		t.Errorf("ran.txt = %q: the tool ran %d times, want once", got, strings.Count(got, "once"))
	}
	if n := len(p.model.Requests()); n != 3 {
		t.Errorf("the model was asked %d times, want 3 (one loop answering both messages)", n)
	}
	if !strings.Contains(out2.String(), "Both questions answered.") {
		t.Errorf("the second run did not print the answer:\n%s", out2.String())
	}
	// The history: hello, then the first question with its tool call, the
	// second question (stored while the tool ran), and one answer.
	var got []string
	for _, m := range p.exportSession(id).Messages {
		got = append(got, m.Info.Role)
	}
	want := []string{"user", "assistant", "user", "assistant", "user", "assistant"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("history roles %v, want %v", got, want)
	}
}

// waitFile returns once path exists; it fails the test if it never does.
func waitFile(t *testing.T, path string) {
	t.Helper()
	waitfor.Until(t, path+" to appear", func() bool {
		_, err := os.Stat(path)
		return err == nil
	})
}
