// Package proc starts the processes that codeloop's tools and MCP servers
// run, so that none of them outlives codeloop.
//
// Each process starts in a process group of its own, so that it and
// everything it starts can be signalled at once; callers stop a command
// with [Process.Signal]. When codeloop dies without stopping it (SIGKILL,
// a crash, an exit while a command runs), two mechanisms end the group:
//
//   - A watcher: a small sh process started beside each command holds the
//     read end of a pipe whose write end only codeloop holds (it is closed
//     on exec in every other child). When codeloop dies the kernel closes
//     the write end, the watcher reads end-of-file and kills the command's
//     whole process group with SIGKILL. When the command ends normally
//     codeloop writes a line instead and the watcher exits quietly. This
//     reaches what the command started (a pipeline, a background job) as
//     long as it stays in the group; a process that leaves the group
//     (setsid, a daemon) is not followed.
//   - On Linux, the parent-death signal (PR_SET_PDEATHSIG, SIGKILL), which
//     kills the command itself at once without any helper process.
//
// The parent-death signal follows the death of the OS thread that started
// the process, not of the process: Go runs goroutines on a pool of threads
// and ends a thread when a goroutine locked to it (runtime.LockOSThread)
// returns without unlocking, which code anywhere in the program may do.
// Locking only around the start is not enough, since the thread goes back
// to the pool afterwards. Start therefore starts and waits for the process
// on one goroutine locked to its thread for the process's whole life: no
// other goroutine can run on that thread, so it cannot be ended early.
package proc

import (
	"os"
	"os/exec"
	"syscall"
)

// Process is a command started by Start.
type Process struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error // Wait's error, valid once done is closed
}

// Start starts cmd in a process group of its own that is killed if
// codeloop dies, and waits for it in the background: use Done or Wait, not
// cmd.Wait. Fields of cmd.SysProcAttr that are already set are kept.
//
// Reading from cmd.StdoutPipe or cmd.StderrPipe races with that wait, which
// closes them; pass an *os.File or an io.Writer instead.
func Start(cmd *exec.Cmd) (*Process, error) {
	prepare(cmd)
	p := &Process{cmd: cmd, done: make(chan struct{})}
	started := make(chan error, 1)
	go p.run(started)
	if err := <-started; err != nil {
		return nil, err
	}
	return p, nil
}

// run starts the command and waits for it on one goroutine, locked to its
// thread where the parent-death signal needs that (see the package doc).
func (p *Process) run(started chan<- error) {
	defer close(p.done)
	unlock := lockThread()
	defer unlock()
	if err := p.cmd.Start(); err != nil {
		started <- err
		return
	}
	w := watch(p.cmd.Process.Pid)
	started <- nil
	p.err = p.cmd.Wait()
	w.release()
}

// Done is closed once the command has exited and its output is copied.
func (p *Process) Done() <-chan struct{} { return p.done }

// Wait waits for the command to end and returns what cmd.Wait returned.
func (p *Process) Wait() error {
	<-p.done
	return p.err
}

// Cmd is the command p runs.
func (p *Process) Cmd() *exec.Cmd { return p.cmd }

// Signal sends sig to the command's whole process group.
func (p *Process) Signal(sig syscall.Signal) error { return SignalGroup(p.cmd.Process, sig) }

// SignalGroup sends sig to the process group that p leads (p was started by
// Start), or to p alone where there are no process groups or the group is
// gone. A nil p is ignored.
func SignalGroup(p *os.Process, sig syscall.Signal) error {
	if p == nil {
		return nil
	}
	return signalGroup(p, sig)
}
