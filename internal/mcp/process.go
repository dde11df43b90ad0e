package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codeloop/codeloop/internal/proc"
)

// Grace periods when stopping a local server: after its stdin is closed it
// has stopGrace to exit on its own, then the same again after SIGTERM before
// it and its process group are killed.
const (
	stopGrace = 2 * time.Second
	waitDelay = 2 * time.Second
)

// processTransport is an sdk.Transport that runs a local server as a child
// process in its own process group and speaks newline-delimited JSON over
// its stdin and stdout. Its stderr goes to the log, line by line.
type processTransport struct {
	ctx     context.Context // kills the process group when done
	name    string          // the server's name, for the log
	command []string
	dir     string
	env     []string
	log     *slog.Logger
}

func (t *processTransport) Connect(context.Context) (sdk.Connection, error) {
	if len(t.command) == 0 || t.command[0] == "" {
		return nil, errors.New("the command is empty")
	}
	cmd := exec.CommandContext(t.ctx, t.command[0], t.command[1:]...)
	cmd.Dir = t.dir
	cmd.Env = t.env
	cmd.Cancel = func() error { return proc.SignalGroup(cmd.Process, syscall.SIGKILL) }
	cmd.WaitDelay = waitDelay
	stderr := &lineLogger{log: t.log, server: t.name}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	// proc.Start puts the server in a process group of its own, so that
	// stopping it also stops whatever it started (npx starts node, say),
	// and kills that group if codeloop dies without stopping it.
	run, err := proc.Start(cmd)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", filepath.Base(t.command[0]), err)
	}
	p := &process{run: run, stdin: stdin, exited: make(chan struct{}), stderr: stderr}
	go p.wait()
	return (&sdk.IOTransport{Reader: eofReader{stdout}, Writer: p}).Connect(t.ctx)
}

// eofReader reads a server's stdout, reporting the pipe closed by the
// server's exit as the end of the stream; closing it does nothing, since
// the process is stopped by closing its stdin.
type eofReader struct{ r io.Reader }

func (e eofReader) Read(b []byte) (int, error) {
	n, err := e.r.Read(b)
	if errors.Is(err, os.ErrClosed) {
		err = io.EOF
	}
	return n, err
}

func (eofReader) Close() error { return nil }

// process is a running local server. Writing to it writes to its stdin;
// closing it stops it.
type process struct {
	run    *proc.Process
	stdin  io.WriteCloser
	stderr *lineLogger

	exited  chan struct{}
	waitErr error
	once    sync.Once
}

func (p *process) wait() {
	p.waitErr = p.run.Wait()
	p.stderr.flush()
	close(p.exited)
}

func (p *process) Write(b []byte) (int, error) { return p.stdin.Write(b) }

// Close asks the server to exit by closing its stdin, then terminates and
// finally kills its process group if it does not. Whatever the server
// started and left behind in its group is terminated too.
func (p *process) Close() error {
	p.once.Do(func() {
		defer func() { _ = p.run.Signal(syscall.SIGTERM) }()
		_ = p.stdin.Close()
		if p.waitFor(stopGrace) {
			return
		}
		_ = p.run.Signal(syscall.SIGTERM)
		if p.waitFor(stopGrace) {
			return
		}
		_ = p.run.Signal(syscall.SIGKILL)
		<-p.exited
	})
	return nil
}

func (p *process) waitFor(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

// lineLogger writes a local server's stderr to the log, one record a line.
type lineLogger struct {
	log    *slog.Logger
	server string

	mu  sync.Mutex
	buf []byte
}

// maxLogLine bounds one logged line of a server's stderr.
const maxLogLine = 4096

func (l *lineLogger) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, b...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			break
		}
		l.emit(l.buf[:i])
		l.buf = l.buf[i+1:]
	}
	if len(l.buf) > maxLogLine {
		l.emit(l.buf)
		l.buf = l.buf[:0]
	}
	return len(b), nil
}

func (l *lineLogger) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buf) > 0 {
		l.emit(l.buf)
		l.buf = nil
	}
}

func (l *lineLogger) emit(line []byte) {
	line = bytes.TrimRight(line, "\r")
	if len(line) == 0 {
		return
	}
	if len(line) > maxLogLine {
		line = line[:maxLogLine]
	}
	l.log.Info("mcp server stderr", "server", l.server, "line", string(line))
}

// serverEnv is the environment of a local server: codeloop's own with the
// entries of extra added or replaced.
func serverEnv(base []string, extra map[string]string) []string {
	if base == nil {
		base = os.Environ()
	}
	env := make([]string, 0, len(base)+len(extra))
	for _, kv := range base {
		k, _, _ := cutEnv(kv)
		if _, ok := extra[k]; !ok {
			env = append(env, kv)
		}
	}
	for k, v := range extra {
		env = append(env, k+"="+v)
	}
	return env
}

func cutEnv(kv string) (string, string, bool) {
	// Windows has variables whose name starts with "=".
	for i := 1; i < len(kv); i++ {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], true
		}
	}
	return kv, "", false
}
