//go:build unix

package tool

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/waitfor"
)

func TestBash(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"sub/file.txt": "content\n"})
	tests := []struct {
		name    string
		input   map[string]any
		want    string // exact output
		exit    int
		errText string
	}{
		{name: "output", input: map[string]any{"command": "echo hello"}, want: "hello\n"},
		{name: "stderr merged", input: map[string]any{"command": "echo out; echo err >&2"}, want: "out\nerr\n"},
		{name: "exit code", input: map[string]any{"command": "echo failing; exit 3"}, want: "failing\n\n\n<shell_metadata>\nExit code: 3\n</shell_metadata>", exit: 3},
		{name: "no output", input: map[string]any{"command": "true"}, want: "(no output)"},
		{name: "stdin is closed", input: map[string]any{"command": `read x; echo "got:$x"`}, want: "got:\n"},
		{name: "workdir", input: map[string]any{"command": "cat file.txt", "workdir": "sub"}, want: "content\n"},
		{name: "killed by a signal", input: map[string]any{"command": "kill -9 $$"}, want: "(no output)\n\n<shell_metadata>\nThe command was killed by signal killed.\n</shell_metadata>", exit: -1},
		{name: "bad workdir", input: map[string]any{"command": "true", "workdir": "missing"}, errText: "is not a directory"},
		{name: "bad timeout", input: map[string]any{"command": "true", "timeout": 0}, errText: "invalid arguments"},
	}
	env := testEnv(t)
	env.Shell = "/bin/sh"
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := run(t, env, "bash", dir, tt.input)
			if tt.errText != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errText) {
					t.Fatalf("error %v, want %q", err, tt.errText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Output != tt.want {
				t.Errorf("output %q, want %q", res.Output, tt.want)
			}
			if res.Metadata["exit"] != tt.exit {
				t.Errorf("exit %v, want %d", res.Metadata["exit"], tt.exit)
			}
			if res.Title != tt.input["command"] {
				t.Errorf("title %q", res.Title)
			}
		})
	}
}

// gone reports whether the process pid has ended (a zombie counts: it
// runs no more and only waits for a parent to reap it).
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
		return true
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return os.IsNotExist(err)
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] == 'Z'
	}
	return false
}

func waitGone(t *testing.T, pidFile string) {
	t.Helper()
	pid := readPid(t, pidFile)
	if !waitfor.Within(waitfor.Deadline, func() bool { return gone(pid) }) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("process %d survived its command", pid)
	}
}

// readPid waits for the command to write its child's pid to pidFile and
// returns it.
func readPid(t testing.TB, pidFile string) int {
	t.Helper()
	var pid int
	waitfor.Until(t, "the command to write its child's pid", func() bool {
		b, _ := os.ReadFile(pidFile)
		n, err := strconv.Atoi(strings.TrimSpace(string(b)))
		pid = n
		return err == nil
	})
	return pid
}

// TestBashTimeoutKillsGrandchildren starts a sleep from a subshell; the
// timeout must end it too.
func TestBashTimeoutKillsGrandchildren(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	env := testEnv(t)
	env.Shell = "/bin/sh"
	cmd := fmt.Sprintf("echo started; ( sleep 300 & echo $! > %s; wait )", pidFile)
	res, err := run(t, env, "bash", dir, map[string]any{"command": cmd, "timeout": 300})
	if err != nil {
		t.Fatal(err)
	}
	want := "started\n\n\n<shell_metadata>\nbash tool terminated the command after exceeding the timeout of 300 ms."
	if !strings.HasPrefix(res.Output, want) || res.Metadata["timedOut"] != true {
		t.Errorf("output %q, metadata %v", res.Output, res.Metadata)
	}
	waitGone(t, pidFile)
}

// TestBashSigkillAfterGrace runs a command that ignores SIGTERM; SIGKILL
// follows after the grace period.
func TestBashSigkillAfterGrace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	env := testEnv(t)
	env.Shell = "/bin/sh"
	env.BashKillGrace = 200 * time.Millisecond
	cmd := fmt.Sprintf("trap '' TERM; sleep 300 & echo $! > %s; wait; wait", pidFile)
	if _, err := run(t, env, "bash", dir, map[string]any{"command": cmd, "timeout": 200}); err != nil {
		t.Fatal(err)
	}
	waitGone(t, pidFile)
}

func TestBashAbort(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	env := testEnv(t)
	env.Shell = "/bin/sh"
	ctx, cancel := context.WithCancel(context.Background())
	call, _ := newCall(t, "bash", dir, map[string]any{"command": fmt.Sprintf("sleep 300 & echo $! > %s; wait", pidFile)})
	started := make(chan struct{})
	call.Progress = func(string, map[string]any) {
		select {
		case <-started:
		default:
			close(started)
		}
	}
	type out struct {
		res *Result
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := toolByID(t, env, "bash").Run(ctx, call)
		done <- out{res, err}
	}()
	<-started
	readPid(t, pidFile) // the command runs its child
	cancel()
	aborted := time.Now()
	select {
	case o := <-done:
		if o.err != nil {
			t.Fatal(o.err)
		}
		if !strings.Contains(o.res.Output, "The user aborted the command.") || o.res.Metadata["aborted"] != true {
			t.Errorf("output %q", o.res.Output)
		}
		t.Logf("returned %v after the abort", time.Since(aborted))
	case <-time.After(2 * time.Second):
		t.Fatal("bash did not return within 2s of the abort")
	}
	waitGone(t, pidFile)
}

// BenchmarkBashAbort measures how long bash takes to return once its call
// is cancelled while a command runs.
func BenchmarkBashAbort(b *testing.B) {
	dir := b.TempDir()
	env := testEnv(b)
	env.Shell = "/bin/sh"
	tl := toolByID(b, env, "bash")
	pidFile := filepath.Join(dir, "pid")
	var total time.Duration
	for b.Loop() {
		_ = os.Remove(pidFile)
		ctx, cancel := context.WithCancel(context.Background())
		call, _ := newCall(b, "bash", dir, map[string]any{"command": fmt.Sprintf("sleep 300 & echo $! > %s; wait", pidFile)})
		started := make(chan struct{})
		var once sync.Once
		call.Progress = func(string, map[string]any) { once.Do(func() { close(started) }) }
		done := make(chan struct{})
		go func() {
			_, _ = tl.Run(ctx, call)
			close(done)
		}()
		<-started
		readPid(b, pidFile) // the command runs its child
		t0 := time.Now()
		cancel()
		<-done
		total += time.Since(t0)
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms/abort")
}

func TestBashTailTruncation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := testEnv(t)
	env.Shell = "/bin/sh"
	env.Truncator.Limits = Limits{MaxLines: 100}
	res, err := run(t, env, "bash", dir, map[string]any{"command": "seq 1 5000"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Output, "...4901 lines truncated...") || !strings.HasSuffix(res.Output, "\n4999\n5000\n") ||
		strings.Contains(res.Output, "\n4900\n") || res.Metadata["truncated"] != true {
		t.Errorf("output %s", cutForLog(res.Output))
	}
	saved, _ := res.Metadata["outputPath"].(string)
	if got := readFile(t, saved); !strings.HasPrefix(got, "1\n2\n") || strings.Count(got, "\n") != 5000 {
		t.Errorf("saved output of %d bytes", len(got))
	}
}

// TestBashSpillsLargeOutput produces more output than is kept in memory;
// it goes to a file as it arrives and the result keeps the tail.
func TestBashSpillsLargeOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := testEnv(t)
	env.Shell = "/bin/sh"
	res, err := run(t, env, "bash", dir, map[string]any{"command": "yes abcdefghi | head -n 1000000; echo last line"})
	if err != nil {
		t.Fatal(err)
	}
	saved, _ := res.Metadata["outputPath"].(string)
	info, err := os.Stat(saved)
	if err != nil || info.Size() != int64(10_000_000+len("last line\n")) {
		t.Fatalf("saved output %v: %v", info, err)
	}
	if !strings.HasPrefix(res.Output, "...") || !strings.HasSuffix(res.Output, "abcdefghi\nlast line\n") || len(res.Output) > DefaultMaxBytes+1024 {
		t.Errorf("output of %d bytes: %s", len(res.Output), cutForLog(res.Output))
	}
	if !strings.HasPrefix(res.Output, "...998002 lines truncated...") {
		t.Errorf("output lacks the marker: %s", cutForLog(res.Output))
	}
}

func TestBashStreamsProgress(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := testEnv(t)
	env.Shell = "/bin/sh"
	call, _ := newCall(t, "bash", dir, map[string]any{"command": "echo first; sleep 0.3; echo second", "description": "Print two words"})
	var mu sync.Mutex
	var seen []string
	call.Progress = func(title string, meta map[string]any) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, title+"|"+meta["output"].(string))
	}
	res, err := toolByID(t, env, "bash").Run(context.Background(), call)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Contains(seen, "Print two words|first\n") || res.Title != "Print two words" || res.Metadata["output"] != "first\nsecond\n" {
		t.Errorf("progress %q, title %q, metadata %v", seen, res.Title, res.Metadata)
	}
}

func TestBashPermissions(t *testing.T) {
	t.Parallel()
	dir, outside := t.TempDir(), t.TempDir()
	realOutside, _ := filepath.EvalSymlinks(outside)
	env := testEnv(t)
	env.Shell = "/bin/sh"
	// By default the permission analysis splits the command; a path
	// argument outside the project asks external_directory first.
	call, asker := newCall(t, "bash", dir, map[string]any{"command": "echo hi && ls " + outside})
	if _, err := toolByID(t, env, "bash").Run(context.Background(), call); err != nil {
		t.Fatal(err)
	}
	if r := asker.requests("bash"); len(r) != 1 || !slices.Equal(r[0].Patterns, []string{"echo hi", "ls " + outside}) ||
		!slices.Equal(r[0].Always, []string{"echo *", "ls *"}) {
		t.Errorf("bash asks %+v", r)
	}
	if r := asker.requests("external_directory"); len(r) != 1 || r[0].Patterns[0] != filepath.ToSlash(realOutside)+"/*" {
		t.Errorf("external_directory asks %+v", r)
	}
	// A deny rule matching one of the commands refuses the whole call.
	call, asker = newCall(t, "bash", dir, map[string]any{"command": "echo ok; rm -rf x"})
	asker.rules = permission.Ruleset{{Permission: "bash", Pattern: "rm *", Action: permission.Deny}}
	if _, err := toolByID(t, env, "bash").Run(context.Background(), call); err == nil {
		t.Error("a denied command ran")
	}
	// With one, its patterns and path arguments are used; paths and a
	// workdir outside the project ask external_directory first.
	env.AnalyzeBash = func(cmd, _ string) BashAnalysis {
		return BashAnalysis{Patterns: []string{"rm " + outside + "/x"}, Always: []string{"rm *"}, Paths: []string{outside + "/x"}, Unanalysable: true, Reason: "test"}
	}
	call, asker = newCall(t, "bash", dir, map[string]any{"command": "true", "workdir": outside})
	if _, err := toolByID(t, env, "bash").Run(context.Background(), call); err != nil {
		t.Fatal(err)
	}
	var perms []string
	for _, r := range asker.asked {
		perms = append(perms, r.Permission)
	}
	ext := asker.requests("external_directory")
	if !slices.Equal(perms, []string{"external_directory", "bash"}) || ext[0].Patterns[0] != filepath.ToSlash(realOutside)+"/*" {
		t.Errorf("asks %+v", asker.asked)
	}
	if b := asker.requests("bash")[0]; !b.Unanalysable || !slices.Equal(b.Always, []string{"rm *"}) {
		t.Errorf("bash ask %+v", b)
	}
}

// BenchmarkBashTrue measures a whole bash call of a command that does
// nothing: the cost of starting the shell and what goes with it.
func BenchmarkBashTrue(b *testing.B) {
	dir := b.TempDir()
	env := testEnv(b)
	env.Shell = "/bin/sh"
	tl := toolByID(b, env, "bash")
	for b.Loop() {
		call, _ := newCall(b, "bash", dir, map[string]any{"command": "true"})
		if _, err := tl.Run(context.Background(), call); err != nil {
			b.Fatal(err)
		}
	}
}
