//go:build unix

package proc

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// prepare puts cmd in a process group of its own and, on Linux, asks for
// the parent-death signal.
func prepare(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	deathSignal(cmd.SysProcAttr)
}

func signalGroup(p *os.Process, sig syscall.Signal) error {
	err := syscall.Kill(-p.Pid, sig)
	switch {
	case err == nil, errors.Is(err, syscall.ESRCH): // ESRCH: the group is gone
		return nil
	}
	return p.Signal(sig)
}

// watcherScript waits for a line on its standard input: a line means the
// command ended and nothing is to be done; end-of-file means codeloop died,
// and the command's process group ($1) is killed.
const watcherScript = `read -r line || kill -s KILL -- "-$1"`

// watcher is the process that kills a command's group if codeloop dies.
type watcher struct {
	cmd  *exec.Cmd
	pipe *os.File // the write end; only codeloop holds it
}

// watch starts the watcher of process group pgid. It returns nil when no
// watcher could be started; the command then still has its parent-death
// signal on Linux.
func watch(pgid int) *watcher {
	sh := "/bin/sh"
	if p, err := exec.LookPath("sh"); err == nil {
		sh = p
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil
	}
	cmd := exec.Command(sh, "-c", watcherScript, "codeloop-watch", strconv.Itoa(pgid))
	cmd.Stdin = r
	// Its own group: a terminal's Ctrl-C meant for codeloop must not end
	// the watcher while codeloop lives on to stop the command itself.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	r.Close()
	if err != nil {
		w.Close()
		return nil
	}
	return &watcher{cmd: cmd, pipe: w}
}

// release tells the watcher the command has ended and waits for it.
func (w *watcher) release() {
	if w == nil {
		return
	}
	_, _ = w.pipe.Write([]byte("\n"))
	w.pipe.Close()
	_ = w.cmd.Wait()
}

// Alive reports whether a process with the id runs (one of another user
// counts).
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
