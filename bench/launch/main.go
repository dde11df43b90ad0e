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
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

// Report is the JSON line written to file descriptor 3.
type Report struct {
	Start  int64 `json:"start"` // Unix nanoseconds just before exec
	End    int64 `json:"end"`   // Unix nanoseconds after the command was reaped
	CPU    int64 `json:"cpu"`   // user+sys nanoseconds, with waited-for descendants
	MaxRSS int64 `json:"maxRSS"`
	// MaxAnon is the largest RssAnon (bytes) of the command's own process
	// seen by sampling /proc/<pid>/status every sampleEvery; 0 where there
	// is no /proc.
	MaxAnon int64  `json:"maxAnon"`
	Code    int    `json:"code"`
	Signal  string `json:"signal,omitempty"`
}

// sampleEvery is how often the command's anonymous memory is read.
const sampleEvery = time.Millisecond

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
	err := cmd.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "launch:", err)
		os.Exit(2)
	}
	done := make(chan struct{})
	sampled := make(chan int64, 1)
	go func() { sampled <- sampleAnon(cmd.Process.Pid, done) }()
	err = cmd.Wait()
	r.End = time.Now().UnixNano()
	close(done)
	r.MaxAnon = <-sampled
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

// sampleAnon reads the RssAnon line of pid's /proc status until done is
// closed or the file can no longer be read, and returns the largest value
// in bytes. The last samples before exit are read from the exiting
// process, whose status no longer has the line once its memory is gone.
func sampleAnon(pid int, done <-chan struct{}) int64 {
	path := "/proc/" + strconv.Itoa(pid) + "/status"
	buf := make([]byte, 4096)
	var peak int64
	t := time.NewTicker(sampleEvery)
	defer t.Stop()
	for {
		f, err := os.Open(path)
		if err != nil {
			return peak
		}
		n, _ := f.Read(buf)
		f.Close()
		peak = max(peak, rssAnon(buf[:n]))
		select {
		case <-done:
			return peak
		case <-t.C:
		}
	}
}

// rssAnon returns the RssAnon figure of a /proc/<pid>/status text in bytes.
func rssAnon(status []byte) int64 {
	_, rest, ok := bytes.Cut(status, []byte("\nRssAnon:"))
	if !ok {
		return 0
	}
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	kb, err := strconv.ParseInt(string(bytes.TrimSuffix(bytes.TrimSpace(line), []byte(" kB"))), 10, 64)
	if err != nil {
		return 0
	}
	return kb * 1024
}
