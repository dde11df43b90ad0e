//go:build unix

package e2e

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// TestRunWithOpenStdin runs `codeloop run "x"` with a standard input pipe
// that nobody writes to or closes: the message was given, so the run must
// not wait for the pipe. Piped text that is there is still appended.
func TestRunWithOpenStdin(t *testing.T) {
	p := newProject(t, "step\ntext Answered without waiting.\nfinish stop input=5 output=3\nstep\ntext Got the log.\nfinish stop input=5 output=3\n", nil)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close() // held open for the whole run
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := p.command(ctx, "run", "say something")
	cmd.Stdin = pr
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	pr.Close()
	if ctx.Err() != nil {
		t.Fatal("run waited for a standard input that never closed")
	}
	if err != nil || !strings.Contains(out.String(), "Answered without waiting.") {
		t.Fatalf("run: %v\n%s\n%s", err, out.String(), errb.String())
	}

	// Text that is piped is read as before.
	ctx2, cancel2 := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel2()
	cmd = p.command(ctx2, "run", "-c", "what does the log say")
	cmd.Stdin = strings.NewReader("error: disk full\n")
	out.Reset()
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("run with piped text: %v\n%s", err, errb.String())
	}
	reqs := p.model.Requests()
	if last := string(reqs[len(reqs)-1].Body); !strings.Contains(last, "what does the log say\\nerror: disk full") {
		t.Errorf("the piped text was not appended to the message:\n%s", last)
	}
}
