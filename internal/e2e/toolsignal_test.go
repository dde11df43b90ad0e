//go:build unix

package e2e

import (
	"bytes"
	"context"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/waitfor"
)

// TestRunReadsNamedPipe has the model read a named pipe: the read fails at
// once with an error that says what the file is, and the run goes on to
// its answer. Opening the pipe used to wait for a writer forever.
func TestRunReadsNamedPipe(t *testing.T) {
	p := newProject(t, `
step
call call_1 read {"filePath":"pipe"}
finish tool-calls input=10 output=5
step
text The file is a pipe.
finish stop input=20 output=5
`, nil)
	if err := syscall.Mkfifo(filepath.Join(p.dir, "pipe"), 0o644); err != nil {
		t.Skipf("cannot make a named pipe: %v", err)
	}
	stdout, stderr, code := p.run("run", "--auto", "read the pipe")
	if code != 0 {
		t.Fatalf("exit status %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "The file is a pipe.") {
		t.Errorf("the run did not reach its answer: %s", stdout)
	}
	reqs := p.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	got, ok := toolResult(t, reqs[1].Body, "call_1")
	if !ok || !strings.Contains(got, "named pipe (FIFO), not a regular file") {
		t.Errorf("the read's result does not say the file is a named pipe: %q", got)
	}
}

// TestSIGTERMDuringTool sends SIGTERM to `codeloop run` while a bash
// command runs, one that exits on SIGTERM and one that ignores it: the run
// must end either way, with status 143, and leave no process of the
// command behind.
func TestSIGTERMDuringTool(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	tests := []struct{ name, command string }{
		{"command stops", "sleep 30"},
		{"command ignores SIGTERM", "trap '' TERM; sleep 30; sleep 30"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProject(t, `
step
call call_1 bash {"command":"`+tt.command+`","description":"Wait a long time"}
finish tool-calls input=10 output=5
step
text Done.
finish stop input=20 output=2
`, nil)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := p.command(ctx, "run", "--auto", "wait")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var sleeps []int
			waitfor.Until(t, "the bash command to start", func() bool {
				sleeps = descendants(cmd.Process.Pid, "sleep")
				return len(sleeps) > 0
			})
			group := processGroup(sleeps[0])
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			if ctx.Err() != nil {
				t.Fatalf("codeloop ignored SIGTERM until the test's deadline killed it\n%s", stderr.String())
			}
			if code := cmd.ProcessState.ExitCode(); code != 143 {
				t.Errorf("exit status %d, want 143\n%s", code, stderr.String())
			}
			if left := groupMembers(group); len(left) > 0 {
				t.Errorf("processes of the command outlived codeloop: %v", left)
			}
		})
	}
}
