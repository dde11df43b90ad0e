package e2e

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestKilledRunStopsItsCommand kills `codeloop run` with SIGKILL while a
// bash command it started sleeps: the command must die with codeloop and
// never write the file it would have written after the sleep.
func TestKilledRunStopsItsCommand(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the parent-death signal is Linux's")
	}
	p := newProject(t, `
step
call call_1 bash {"command":"sleep 1.5; echo late > after-death.txt","description":"Sleep then write"}
finish tool-calls input=10 output=5
step
text Done.
finish stop input=20 output=2
`, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := p.command(ctx, "run", "--auto", "sleep then write")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until bash runs: its sleep is a child of codeloop's child.
	deadline := time.Now().Add(30 * time.Second)
	for !hasGrandchild(cmd.Process.Pid, "sleep") {
		if time.Now().After(deadline) {
			t.Fatal("the bash command never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	time.Sleep(2500 * time.Millisecond) // past the sleep
	if _, err := os.Stat(filepath.Join(p.dir, "after-death.txt")); err == nil {
		t.Fatal("the bash command outlived codeloop and wrote its file")
	}
}

// hasGrandchild reports whether a child of a child of pid runs a program
// named comm, reading /proc.
func hasGrandchild(pid int, comm string) bool {
	children := func(p int) []int {
		var out []int
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			c, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
			if err != nil {
				continue
			}
			if parentOf(string(b)) == p {
				out = append(out, c)
			}
		}
		return out
	}
	for _, c := range children(pid) {
		for _, g := range children(c) {
			if b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(g), "comm")); err == nil && string(b) == comm+"\n" {
				return true
			}
		}
	}
	return false
}

// parentOf returns the parent pid from the text of /proc/PID/stat.
func parentOf(stat string) int {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(stat[i+1:])
	if len(f) < 2 {
		return 0
	}
	pp, _ := strconv.Atoi(f[1])
	return pp
}
