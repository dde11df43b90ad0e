// Package lsp runs language servers for the files codeloop's tools read and
// change, and reports the errors they find.
//
// A server starts lazily, the first time a file it serves is read or
// changed, and only when its program is on PATH; there is one process per
// server and project root. After a change, Diagnose sends the file's new
// content, waits briefly for the server's diagnostics (see Timing) and
// returns the file's errors, and a count of new errors in other files, as
// text for the tool result. A server that exits is restarted at most three
// times, then marked failed. Close shuts every server down.
//
// JSON-RPC framing and the message types come from go.lsp.dev/jsonrpc2 and
// go.lsp.dev/protocol.
package lsp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// MaxRestarts is how many times a server that exited is started again
// before it is marked failed.
const MaxRestarts = 3

// Options configure a Manager.
type Options struct {
	// Servers is the server table (see Resolve); empty means no servers.
	Servers []Server
	// Worktree is the project root: files outside it get no server.
	Worktree string
	// Timing bounds the wait for diagnostics; zero fields take
	// DefaultTiming's.
	Timing Timing
	// StartTimeout bounds a server's start-up handshake (10 s when zero).
	StartTimeout time.Duration
	// Version is codeloop's version, sent to servers.
	Version string
	Log     *slog.Logger
}

// State is where a server instance stands.
type State string

// The states of a server instance.
const (
	Starting State = "starting"
	Running  State = "running"
	Exited   State = "exited" // ended; started again on the next use
	Failed   State = "failed" // ended too often; not started again
)

// Status describes one server instance.
type Status struct {
	Server   string
	Root     string
	State    State
	Restarts int
	// Reason says why the server is exited or failed.
	Reason string
	// Pid is the process id while the server runs.
	Pid int
}

// Manager runs the language servers of one project. Its methods are safe
// for concurrent use.
type Manager struct {
	opts Options

	mu        sync.Mutex
	instances map[instanceKey]*instance
	closed    bool
	wg        sync.WaitGroup // starts and warm-ups in the background
	stop      context.CancelFunc
	life      context.Context
}

type instanceKey struct{ server, root string }

// instance is one server for one root, across restarts.
type instance struct {
	server *Server
	root   string

	// Guarded by Manager.mu.
	state    State
	client   *client
	ready    chan struct{} // closed when the current start attempt ends
	starts   int
	reason   string
	reported bool // the last failure was reported in a result
}

// New returns a manager; servers start only when used.
func New(opts Options) *Manager {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	d := DefaultTiming
	if opts.Timing.First <= 0 {
		opts.Timing.First = d.First
	}
	if opts.Timing.Quiet <= 0 {
		opts.Timing.Quiet = d.Quiet
	}
	if opts.Timing.Max <= 0 {
		opts.Timing.Max = d.Max
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 10 * time.Second
	}
	opts.Worktree = filepath.Clean(opts.Worktree)
	life, stop := context.WithCancel(context.Background())
	return &Manager{opts: opts, instances: map[instanceKey]*instance{}, life: life, stop: stop}
}

// Enabled reports whether any server is configured.
func (m *Manager) Enabled() bool { return m != nil && len(m.opts.Servers) > 0 }

// serversFor returns the servers that serve path and are installed: one
// per group.
func (m *Manager) serversFor(path string) []*Server {
	if !within(path, m.opts.Worktree) {
		return nil
	}
	var out []*Server
	var groups []string
	for i := range m.opts.Servers {
		s := &m.opts.Servers[i]
		if !s.serves(path) || (s.Group != "" && slices.Contains(groups, s.Group)) {
			continue
		}
		if _, err := exec.LookPath(s.Command[0]); err != nil {
			continue
		}
		if s.Group != "" {
			groups = append(groups, s.Group)
		}
		out = append(out, s)
	}
	return out
}

// instanceFor returns the instance of s for path's root, starting it in the
// background when it is not running and may start. started says this call
// began a start.
func (m *Manager) instanceFor(s *Server, path string) (in *instance, started bool) {
	root := s.findRoot(path, m.opts.Worktree)
	key := instanceKey{s.Name, root}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, false
	}
	in = m.instances[key]
	if in == nil {
		in = &instance{server: s, root: root}
		m.instances[key] = in
	}
	switch in.state {
	case Starting, Failed:
		return in, false
	case Running:
		if in.client.alive() {
			return in, false
		}
		in.state, in.reason, in.reported = Exited, in.client.exitError().Error(), false
		m.opts.Log.Warn("lsp: server exited", "server", s.Name, "root", root, "reason", in.reason)
	}
	if in.starts > MaxRestarts {
		in.state = Failed
		return in, false
	}
	in.state = Starting
	in.starts++
	in.ready = make(chan struct{})
	m.wg.Add(1)
	go m.start(in, in.ready)
	return in, true
}

// start starts in's server; it runs on its own goroutine, which Close
// waits for.
func (m *Manager) start(in *instance, ready chan struct{}) {
	defer m.wg.Done()
	defer close(ready)
	ctx, cancel := context.WithTimeout(m.life, m.opts.StartTimeout)
	defer cancel()
	begin := time.Now()
	c, err := startClient(ctx, in.server, in.root, m.opts.Version, m.opts.Log)
	m.mu.Lock()
	defer m.mu.Unlock()
	if err == nil && m.closed {
		// Close came during the start: it no longer sees this client.
		m.mu.Unlock()
		c.close(time.Second)
		m.mu.Lock()
		err = errors.New("codeloop is closing")
	}
	if err != nil {
		in.reason, in.reported = err.Error(), false
		in.state = Exited
		if in.starts > MaxRestarts {
			in.state = Failed
		}
		m.opts.Log.Warn("lsp: server did not start", "server", in.server.Name, "root", in.root, "err", err)
		return
	}
	in.client, in.state, in.reason = c, Running, ""
	m.opts.Log.Info("lsp: server started", "server", in.server.Name, "root", in.root, "took", time.Since(begin))
}

// ready waits until in's current start attempt ends, ctx ends or deadline
// passes, and returns the running client, or nil.
func (m *Manager) ready(ctx context.Context, in *instance, deadline time.Time) *client {
	m.mu.Lock()
	state, ready, c := in.state, in.ready, in.client
	m.mu.Unlock()
	switch state {
	case Running:
		return c
	case Starting:
	default:
		return nil
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case <-ready:
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if in.state == Running {
		return in.client
	}
	return nil
}

// Warm starts the servers for path and opens it on them without waiting:
// the read tool calls it so that diagnostics are ready by the first edit.
func (m *Manager) Warm(path string) {
	if !m.Enabled() {
		return
	}
	for _, s := range m.serversFor(path) {
		in, _ := m.instanceFor(s, path)
		if in == nil {
			continue
		}
		m.mu.Lock()
		if m.closed {
			m.mu.Unlock()
			return
		}
		m.wg.Add(1)
		m.mu.Unlock()
		go func() {
			defer m.wg.Done()
			ctx, cancel := context.WithTimeout(m.life, m.opts.StartTimeout)
			defer cancel()
			if c := m.ready(ctx, in, time.Now().Add(m.opts.StartTimeout)); c != nil && !c.isOpen(path) {
				_, _, _ = c.sync(ctx, path)
			}
		}()
	}
}

// Running reports whether a server is running for the project.
func (m *Manager) Running() bool {
	if m == nil {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, in := range m.instances {
		if in.state == Running && in.client.alive() {
			return true
		}
	}
	return false
}

// Status lists the server instances started so far, by server and root.
func (m *Manager) Status() []Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Status
	for _, in := range m.instances {
		st := Status{Server: in.server.Name, Root: in.root, State: in.state, Reason: in.reason, Restarts: max(0, in.starts-1)}
		if in.state == Running {
			if in.client.alive() {
				st.Pid = in.client.proc.Cmd().Process.Pid
			} else {
				st.State, st.Reason = Exited, in.client.exitError().Error()
			}
		}
		out = append(out, st)
	}
	slices.SortFunc(out, func(a, b Status) int {
		if a.Server != b.Server {
			return cmp.Compare(a.Server, b.Server)
		}
		return cmp.Compare(a.Root, b.Root)
	})
	return out
}

// Available lists the configured servers and whether their programs are on
// PATH.
func (m *Manager) Available() []Availability {
	var out []Availability
	for _, s := range m.opts.Servers {
		a := Availability{Server: s.Name, Command: s.Command, Extensions: s.Extensions}
		if p, err := exec.LookPath(s.Command[0]); err == nil {
			a.Path = p
		}
		out = append(out, a)
	}
	return out
}

// Availability says whether a configured server can start.
type Availability struct {
	Server     string
	Command    []string
	Extensions []string
	// Path is where the program was found on PATH; empty when it was not.
	Path string
}

// Close shuts every server down (shutdown and exit, then a kill for those
// that linger) and waits for background starts to end.
func (m *Manager) Close() error {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	m.stop()
	var clients []*client
	for _, in := range m.instances {
		if in.client != nil {
			clients = append(clients, in.client)
		}
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Go(func() { c.close(closeGrace) })
	}
	wg.Wait()
	m.wg.Wait()
	return nil
}

// failure describes a server that did not start or exited, for a result.
func failure(in *instance) string {
	if in.state == Failed {
		return fmt.Sprintf("The %s language server failed and will not be started again this session (it was restarted %d times): %s.",
			in.server.Name, MaxRestarts, in.reason)
	}
	return fmt.Sprintf("The %s language server stopped: %s. It will be started again on the next change (restarts left: %d).",
		in.server.Name, in.reason, MaxRestarts+1-in.starts)
}

// closeGrace is how long Close lets a server shut down politely before it
// is terminated: a server still loading the project may not answer the
// shutdown request for seconds, and it keeps nothing that a polite exit
// would save.
const closeGrace = 100 * time.Millisecond
