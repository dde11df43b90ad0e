//go:build unix

// Command launch runs one command and reports what it cost, for the
// benchmark harness. The harness cannot measure its children's peak RSS
// itself: Go starts processes with vfork, and Linux carries the parent's
// peak RSS into the child when it executes. This small program starts the
// measured command instead, so only its own few megabytes can leak in.
//
// Usage: launch <command> [args...]. The command inherits the environment,
// the working directory and standard streams; the report is one JSON line
// written to file descriptor 3. Nothing imports it.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// Report is the JSON line written to file descriptor 3.
type Report struct {
	Start  int64  `json:"start"` // Unix nanoseconds just before exec
	End    int64  `json:"end"`   // Unix nanoseconds after the command was reaped
	CPU    int64  `json:"cpu"`   // user+sys nanoseconds, with waited-for descendants
	MaxRSS int64  `json:"maxRSS"`
	Code   int    `json:"code"`
	Signal string `json:"signal,omitempty"`
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: launch <command> [args...]")
		os.Exit(2)
	}
	report := os.NewFile(3, "report")
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	var r Report
	r.Start = time.Now().UnixNano()
	err := cmd.Run()
	r.End = time.Now().UnixNano()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "launch:", err)
		os.Exit(2)
	}
	r.Code = cmd.ProcessState.ExitCode()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		r.Signal = ws.Signal().String()
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.CPU = ru.Utime.Nano() + ru.Stime.Nano()
		r.MaxRSS = ru.Maxrss * 1024 // kilobytes on Linux
	}
	if err := json.NewEncoder(report).Encode(r); err != nil {
		fmt.Fprintln(os.Stderr, "launch:", err)
		os.Exit(2)
	}
}
