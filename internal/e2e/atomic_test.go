package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/fakellm"
	"github.com/codeloop/codeloop/internal/llm"
)

// TestCrashWhileRewriting kills `codeloop run` with SIGKILL at random
// moments while the model has it rewrite a 300 KB file again and again
// with write and edit, and checks that the file is whole every time: its
// original content or one of the versions written, never a part of one.
//
// It kills 50 times by default (CODELOOP_REWRITE_KILLS changes that;
// CODELOOP_REWRITE_SEED replays a run's kill delays) and is skipped with
// -short.
func TestCrashWhileRewriting(t *testing.T) {
	if testing.Short() {
		t.Skip("kills codeloop at random moments; run without -short")
	}
	kills := 50
	if v := os.Getenv("CODELOOP_REWRITE_KILLS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("CODELOOP_REWRITE_KILLS=%q", v)
		}
		kills = n
	}
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("CODELOOP_REWRITE_SEED"); v != "" {
		s, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("CODELOOP_REWRITE_SEED=%q", v)
		}
		seed = s
	}
	t.Logf("seed %d (CODELOOP_REWRITE_SEED replays it)", seed)
	rng := rand.New(rand.NewPCG(seed, seed>>1|1))

	version := func(tag string) string {
		line := fmt.Sprintf("%s %s\n", tag, strings.Repeat("x", 60))
		return strings.Repeat(line, 300*1024/len(line))
	}
	original := version("original")
	versions := map[string]bool{original: true}
	var step fakellm.Step
	call := func(id, tool string, input map[string]any) {
		b, _ := json.Marshal(input)
		step = append(step, fakellm.Call(id, tool, string(b))...)
	}
	// Twelve writes of a whole new version, each followed by an edit that
	// renames the version's tag on every line.
	for i := range 12 {
		tag, edited := fmt.Sprintf("version%02d", i), fmt.Sprintf("edited%02d", i)
		v := version(tag)
		versions[v], versions[strings.ReplaceAll(v, tag+" ", edited+" ")] = true, true
		call(fmt.Sprintf("call_w%d", i), "write", map[string]any{"filePath": "big.txt", "content": v})
		call(fmt.Sprintf("call_e%d", i), "edit", map[string]any{"filePath": "big.txt", "oldString": tag + " ", "newString": edited + " ", "replaceAll": true})
	}
	step = append(step, fakellm.Finish(llm.FinishToolCalls, llm.Usage{Input: 10, Output: 10})...)
	steps := []fakellm.Step{step, append(fakellm.Text("t", "Done."), fakellm.Finish(llm.FinishStop, llm.Usage{})...)}

	torn, killed, midWrite := 0, 0, 0
	for i := 0; killed < kills && i < kills*3; i++ {
		r := newRig(t, steps, map[string]string{"big.txt": original})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := r.command(ctx, "run", "--auto", "rewrite big.txt")
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			cancel()
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		// A third of the runs kill while a new version is being staged,
		// a third just after the file is first seen to change (when an
		// in-place write would be under way), a third within 5 ms of that,
		// while the writes and edits that follow run.
		// The sleeps after the waits are not waits: they are the random
		// jitter that spreads the kills over the write.
		switch i % 3 {
		case 0:
			waitStaged(r.dir, exited)
			time.Sleep(time.Duration(rng.IntN(300)) * time.Microsecond)
		case 1:
			waitChange(filepath.Join(r.dir, "big.txt"), exited, true)
			time.Sleep(time.Duration(rng.IntN(50)) * time.Microsecond)
		default:
			waitChange(filepath.Join(r.dir, "big.txt"), exited, false)
			time.Sleep(time.Duration(rng.IntN(5000)) * time.Microsecond)
		}
		select {
		case <-exited:
		default:
			_ = cmd.Process.Signal(syscall.SIGKILL)
			<-exited
			if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				killed++
			}
		}
		cancel()
		if staged, _ := filepath.Glob(filepath.Join(r.dir, ".big.txt.codeloop-*")); len(staged) > 0 {
			midWrite++ // the kill cut a write short: its staged file is left
		}
		got, err := os.ReadFile(filepath.Join(r.dir, "big.txt"))
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if !versions[string(got)] {
			torn++
			t.Errorf("run %d: big.txt is torn: %d bytes, starting %q", i, len(got), got[:min(len(got), 20)])
		}
	}
	t.Logf("%d kills (%d in the middle of a write or edit), %d torn files", killed, midWrite, torn)
	if killed < kills {
		t.Errorf("only %d of %d runs were still going at their kill moment", killed, kills)
	}
}

// waitStaged returns once dir holds a staged temporary file of big.txt,
// or the process has exited, or after 30 seconds.
func waitStaged(dir string, exited <-chan struct{}) {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return
		default:
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".big.txt.codeloop-") {
				return
			}
		}
		time.Sleep(20 * time.Microsecond) // a look every 20 µs: the waitfor helper's few ms would miss the write
	}
}

// waitChange returns once the file at path differs in size, time or inode
// from when it was first looked at, or the process has exited, or after
// 30 seconds. With spin it looks again at once rather than sleeping
// between looks, to catch a write in its first microseconds.
func waitChange(path string, exited <-chan struct{}, spin bool) {
	first, _ := os.Stat(path)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return
		default:
		}
		now, err := os.Stat(path)
		if err != nil || first == nil || changed(first, now) {
			return
		}
		if !spin {
			time.Sleep(20 * time.Microsecond) // a look every 20 µs, as in waitStaged
		}
	}
}

func changed(a, b fs.FileInfo) bool {
	return a.Size() != b.Size() || !a.ModTime().Equal(b.ModTime()) || !os.SameFile(a, b)
}

// TestStartRemovesStagedFiles leaves staged files of writes in a project
// as a killed codeloop does, and checks that the next start removes those
// of processes that have ended and keeps the one a running process (this
// test) names.
func TestStartRemovesStagedFiles(t *testing.T) {
	p := newProject(t, "step\ntext Hello.\nfinish stop\n", map[string]string{"a.txt": "a\n"})
	ended := exec.Command("true")
	if err := ended.Run(); err != nil {
		t.Fatal(err)
	}
	dead, live := strconv.Itoa(ended.Process.Pid), strconv.Itoa(os.Getpid())
	staged := map[string]bool{ // path: removed at start
		".a.txt.codeloop-" + dead + "-1234.tmp":       true,
		"src/deep/.b.go.codeloop-" + dead + "-99.tmp": true,
		".a.txt.codeloop-" + live + "-77.tmp":         false,
		"src/.c.go.codeloop-" + live + "-1.tmp":       false,
	}
	for rel := range staged {
		path := filepath.Join(p.dir, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("half a write"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, stderr, code := p.run("run", "hello"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	for rel, removed := range staged {
		_, err := os.Stat(filepath.Join(p.dir, rel))
		if gone := errors.Is(err, fs.ErrNotExist); gone != removed {
			t.Errorf("%s: removed %v, want %v", rel, gone, removed)
		}
	}
	if b, err := os.ReadFile(filepath.Join(p.dir, "a.txt")); err != nil || string(b) != "a\n" {
		t.Errorf("a.txt = %q, %v", b, err)
	}
}
