package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/waitfor"
)

// TestKilledRunStopsItsCommand kills `codeloop run` with SIGKILL while a
// bash command it started sleeps, with a second sleep in a background
// subshell: the shell and everything in its process group must die with
// codeloop, and never write the files they would have written after the
// sleeps.
func TestKilledRunStopsItsCommand(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	p := newProject(t, `
step
call call_1 bash {"command":"(sleep 2; echo late > child-after-death.txt) & sleep 2; echo late > after-death.txt; wait","description":"Sleep then write"}
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
	// Wait until both sleeps run: they are descendants of codeloop.
	var sleeps []int
	waitfor.Until(t, "both sleeps of the bash command to run", func() bool {
		sleeps = descendants(cmd.Process.Pid, "sleep")
		return len(sleeps) >= 2
	})
	group := processGroup(sleeps[0])
	killed := time.Now()
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	if !waitfor.Within(waitfor.Deadline, func() bool { return len(groupMembers(group)) == 0 }) {
		t.Fatalf("processes of the command's group %d outlived codeloop: %v", group, groupMembers(group))
	}
	// Not a wait for an event: nothing may write, and an absence sends no
	// signal, so the test lets the time the sleeps would take pass.
	time.Sleep(time.Until(killed.Add(3 * time.Second)))
	for _, name := range []string{"after-death.txt", "child-after-death.txt"} {
		if _, err := os.Stat(filepath.Join(p.dir, name)); err == nil {
			t.Errorf("the bash command outlived codeloop and wrote %s", name)
		}
	}
}

// procStat is /proc/PID/stat after the command name: state, ppid, pgrp, ….
func procStat(pid int) []string {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return nil
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(s[i+1:])
}

// pids lists the processes in /proc.
func pids() []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// descendants returns the live descendants of pid that run a program named
// comm.
func descendants(pid int, comm string) []int {
	parent := map[int]int{}
	for _, p := range pids() {
		if f := procStat(p); len(f) > 1 {
			parent[p], _ = strconv.Atoi(f[1])
		}
	}
	var out []int
	for p := range parent {
		for a := parent[p]; a > 1; a = parent[a] {
			if a == pid {
				b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p), "comm"))
				if err == nil && string(b) == comm+"\n" {
					out = append(out, p)
				}
				break
			}
		}
	}
	return out
}

// processGroup returns the process group of pid.
func processGroup(pid int) int {
	f := procStat(pid)
	if len(f) < 3 {
		return 0
	}
	g, _ := strconv.Atoi(f[2])
	return g
}

// groupMembers returns the live (not zombie) processes of group pgrp.
func groupMembers(pgrp int) []int {
	var out []int
	for _, p := range pids() {
		if f := procStat(p); len(f) > 2 && f[0] != "Z" && f[2] == strconv.Itoa(pgrp) {
			out = append(out, p)
		}
	}
	return out
}

// TestKilledRunStopsMCPServer kills `codeloop run` with SIGKILL while a
// local MCP server runs, one that put a child in the background: both must
// die with codeloop.
func TestKilledRunStopsMCPServer(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	p := newProject(t, "step\ntext Waiting\nhang\n", nil)
	pids := t.TempDir()
	p.writeConfig(fmt.Sprintf(`{"experimental": {"mcp_startup_wait": 100},
		"mcp": {"kids": {"type": "local", "command": ["sh", "-c", "sleep 300 & echo $! > %[1]s/child; echo $$ > %[1]s/server; exec sleep 300"]}}}`, pids))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := p.command(ctx, "run", "wait")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.model.Hung():
	case <-time.After(30 * time.Second):
		t.Fatal("the model was never reached")
	}
	var procs []int
	for _, name := range []string{"server", "child"} {
		var pid int
		waitfor.Until(t, "the server to write its "+name+" pid", func() bool {
			b, err := os.ReadFile(filepath.Join(pids, name))
			n, perr := strconv.Atoi(strings.TrimSpace(string(b)))
			pid = n
			return err == nil && perr == nil
		})
		procs = append(procs, pid)
	}
	group := processGroup(procs[0])
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	if !waitfor.Within(waitfor.Deadline, func() bool { return len(groupMembers(group)) == 0 }) {
		t.Fatalf("the MCP server's processes %v outlived codeloop", groupMembers(group))
	}
}
