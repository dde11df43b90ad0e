package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
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
// It kills 50 times by default (CODELOOP_REWRITE_KILLS changes that) and
// is skipped with -short.
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
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed>>1|1))

	version := func(tag string) string {
		line := fmt.Sprintf("%s %s\n", tag, strings.Repeat("x", 60))
		return strings.Repeat(line, 300*1024/len(line))
	}
	original := version("original")
	versions := map[string]bool{original: true}
	var step fakellm.Step
	for i := range 12 {
		v := version(fmt.Sprintf("version%02d", i))
		versions[v] = true
		input, _ := json.Marshal(map[string]string{"filePath": "big.txt", "content": v})
		step = append(step, fakellm.Call(fmt.Sprintf("call_%d", i), "write", string(input))...)
	}
	step = append(step, fakellm.Finish(llm.FinishToolCalls, llm.Usage{Input: 10, Output: 10})...)
	steps := []fakellm.Step{step, append(fakellm.Text("t", "Done."), fakellm.Finish(llm.FinishStop, llm.Usage{})...)}

	torn, killed := 0, 0
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
		// Kill soon after the file is first seen to change, when a write
		// is most likely under way.
		waitChange(filepath.Join(r.dir, "big.txt"), exited)
		time.Sleep(time.Duration(rng.IntN(400)) * time.Microsecond)
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
		got, err := os.ReadFile(filepath.Join(r.dir, "big.txt"))
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if !versions[string(got)] {
			torn++
			t.Errorf("run %d: big.txt is torn: %d bytes, starting %q", i, len(got), got[:min(len(got), 20)])
		}
	}
	t.Logf("%d kills, %d torn files", killed, torn)
	if killed < kills {
		t.Errorf("only %d of %d runs were still going at their kill moment", killed, kills)
	}
}

// waitChange returns once the file at path differs in size, time or inode
// from when it was first looked at, or the process has exited, or after
// 30 seconds.
func waitChange(path string, exited <-chan struct{}) {
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
		time.Sleep(20 * time.Microsecond)
	}
}

func changed(a, b fs.FileInfo) bool {
	return a.Size() != b.Size() || !a.ModTime().Equal(b.ModTime()) || !os.SameFile(a, b)
}
