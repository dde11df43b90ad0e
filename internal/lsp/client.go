package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/codeloop/codeloop/internal/proc"
)

// client is one running server process for one root, and the connection
// to it.
type client struct {
	server *Server
	root   string
	proc   *proc.Process
	conn   jsonrpc2.Conn
	stderr *tail
	log    *slog.Logger
	// exited is closed once the process has ended and the connection is
	// closed.
	exited chan struct{}

	mu    sync.Mutex
	docs  map[uri.URI]int32      // open documents and their versions
	diags map[uri.URI]*published // the last diagnostics published per document
	seq   uint64                 // publications so far
	last  time.Time              // when the last publication came
	wake  chan struct{}          // closed and replaced at every publication
}

// published is one document's diagnostics as last published.
type published struct {
	seq     uint64 // c.seq when they came
	version int32  // the document version they are for; 0 when unknown
	diags   []protocol.Diagnostic
}

// rwc joins the two pipe ends the connection uses.
type rwc struct {
	io.Reader
	io.Writer
	closers []io.Closer
}

func (p rwc) Close() error {
	var errs []error
	for _, c := range p.closers {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// startClient starts s's program for root and initializes it. The process
// belongs to the client: close stops it.
func startClient(ctx context.Context, s *Server, root, version string, log *slog.Logger) (*client, error) {
	path, err := exec.LookPath(s.Command[0])
	if err != nil {
		return nil, fmt.Errorf("%s is not on PATH: %w", s.Command[0], err)
	}
	cmd := exec.Command(path, s.Command[1:]...)
	cmd.Dir = root
	cmd.Env = os.Environ()
	for k, v := range s.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errs := &tail{max: 4096}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errs
	p, err := proc.Start(cmd)
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("starting %s: %w", s.Command[0], err)
	}
	c := &client{
		server: s, root: root, proc: p, stderr: errs, log: log,
		exited: make(chan struct{}),
		docs:   map[uri.URI]int32{}, diags: map[uri.URI]*published{}, wake: make(chan struct{}),
	}
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(rwc{Reader: outR, Writer: inW, closers: []io.Closer{inW, outR}}))
	c.conn.Go(context.Background(), c.handle)
	go func() {
		// The process ending ends the connection, and with it every call
		// still waiting for an answer.
		<-p.Done()
		c.conn.Close()
		<-c.conn.Done()
		close(c.exited)
	}()
	if err := c.initialize(ctx, version); err != nil {
		// A server that exits at once fails the handshake with a broken
		// pipe: its exit status and standard error say more.
		select {
		case <-p.Done():
			err = c.exitError()
		case <-time.After(200 * time.Millisecond):
		}
		c.kill()
		return nil, err
	}
	return c, nil
}

// initialize runs the initialize handshake.
func (c *client) initialize(ctx context.Context, version string) error {
	rootURI := uri.File(c.root)
	params := protocol.InitializeParams{
		ProcessID:  int32(os.Getpid()),
		ClientInfo: &protocol.ClientInfo{Name: "codeloop", Version: version},
		//lint:ignore SA1019 servers that predate workspace folders still read the root from here
		RootURI: rootURI,
		//lint:ignore SA1019 as RootURI
		RootPath: c.root,
		Capabilities: protocol.ClientCapabilities{
			Workspace: &protocol.WorkspaceClientCapabilities{Configuration: true, WorkspaceFolders: true},
			TextDocument: &protocol.TextDocumentClientCapabilities{
				Synchronization:    &protocol.TextDocumentSyncClientCapabilities{DidSave: true},
				PublishDiagnostics: &protocol.PublishDiagnosticsClientCapabilities{VersionSupport: true},
				Hover:              &protocol.HoverTextDocumentClientCapabilities{ContentFormat: []protocol.MarkupKind{protocol.PlainText, protocol.Markdown}},
				DocumentSymbol:     &protocol.DocumentSymbolClientCapabilities{HierarchicalDocumentSymbolSupport: true},
			},
		},
		WorkspaceFolders: []protocol.WorkspaceFolder{{URI: string(rootURI), Name: filepath.Base(c.root)}},
	}
	if len(c.server.Initialization) > 0 {
		params.InitializationOptions = c.server.Initialization
	}
	var result json.RawMessage
	if err := c.call(ctx, protocol.MethodInitialize, params, &result); err != nil {
		return fmt.Errorf("initializing: %w", err)
	}
	if err := c.conn.Notify(ctx, protocol.MethodInitialized, struct{}{}); err != nil {
		return fmt.Errorf("initializing: %w", err)
	}
	return nil
}

// call makes a request and waits for its answer, the end of ctx or the
// end of the process, whichever comes first.
func (c *client) call(ctx context.Context, method string, params, result any) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		select {
		case <-c.proc.Done():
			cancel(c.exitError())
		case <-ctx.Done():
		}
	}()
	_, err := c.conn.Call(ctx, method, params, result)
	if err != nil && context.Cause(ctx) != nil && ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return err
}

// exitError describes how the process ended, with the end of what it
// wrote to standard error.
func (c *client) exitError() error {
	err := c.proc.Wait()
	msg := "exited"
	if err != nil {
		msg = "exited: " + err.Error()
	}
	if s := c.stderr.String(); s != "" {
		msg += ": " + s
	}
	return errors.New(msg)
}

// alive reports whether the process still runs.
func (c *client) alive() bool {
	select {
	case <-c.exited:
		return false
	default:
		return true
	}
}

// handle answers what the server sends: diagnostics, and the few requests a
// server makes of its client.
func (c *client) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	switch req.Method() {
	case protocol.MethodTextDocumentPublishDiagnostics:
		var p protocol.PublishDiagnosticsParams
		if err := json.Unmarshal(req.Params(), &p); err != nil {
			c.log.Debug("lsp: bad diagnostics", "server", c.server.Name, "err", err)
			return reply(ctx, nil, nil)
		}
		c.publish(p)
		return reply(ctx, nil, nil)
	case protocol.MethodWorkspaceConfiguration:
		var p protocol.ConfigurationParams
		_ = json.Unmarshal(req.Params(), &p)
		out := make([]any, len(p.Items))
		for i := range out {
			if len(c.server.Initialization) > 0 {
				out[i] = c.server.Initialization
			}
		}
		return reply(ctx, out, nil)
	case protocol.MethodWorkspaceWorkspaceFolders:
		return reply(ctx, []protocol.WorkspaceFolder{{URI: string(uri.File(c.root)), Name: filepath.Base(c.root)}}, nil)
	case protocol.MethodWorkspaceApplyEdit:
		return reply(ctx, map[string]any{"applied": false}, nil)
	case protocol.MethodWorkDoneProgressCreate, protocol.MethodClientRegisterCapability,
		protocol.MethodClientUnregisterCapability, protocol.MethodWindowShowMessageRequest:
		return reply(ctx, nil, nil)
	}
	if _, isCall := req.(*jsonrpc2.Call); isCall && !strings.HasSuffix(req.Method(), "/refresh") {
		return jsonrpc2.MethodNotFoundHandler(ctx, reply, req)
	}
	return reply(ctx, nil, nil)
}

// publish records diagnostics the server published and wakes the waiters.
func (c *client) publish(p protocol.PublishDiagnosticsParams) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	c.last = time.Now()
	c.diags[normalURI(p.URI)] = &published{seq: c.seq, version: int32(p.Version), diags: p.Diagnostics}
	close(c.wake)
	c.wake = make(chan struct{})
}

// normalURI is u as uri.File would make it, so that the server's spelling
// of a path ("file:///a%3Ab") matches ours.
func normalURI(u uri.URI) uri.URI {
	if !strings.HasPrefix(string(u), "file://") {
		return u
	}
	return uri.File(u.Filename())
}

// sync tells the server the current content of path: didOpen the first
// time, didChange and didSave after. It returns the publication count
// before the change and the document's new version; diagnostics that came
// later describe the new content. A path that no longer exists is closed.
func (c *client) sync(ctx context.Context, path string) (since uint64, version int32, err error) {
	u := uri.File(path)
	text, err := os.ReadFile(path)
	c.mu.Lock()
	v, open := c.docs[u]
	since = c.seq
	switch {
	case err != nil && open:
		delete(c.docs, u)
		delete(c.diags, u)
	case err == nil:
		v++
		c.docs[u] = v
	}
	c.mu.Unlock()
	if err != nil {
		if open {
			_ = c.conn.Notify(ctx, protocol.MethodTextDocumentDidClose,
				protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
		}
		return since, 0, err
	}
	if !open {
		err = c.conn.Notify(ctx, protocol.MethodTextDocumentDidOpen, protocol.DidOpenTextDocumentParams{
			TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: protocol.LanguageIdentifier(languageID(path)), Version: v, Text: string(text)},
		})
		return since, v, err
	}
	// The whole text, with no range: protocol.TextDocumentContentChangeEvent
	// always sends a range, which would make this an insertion.
	type wholeText struct {
		Text string `json:"text"`
	}
	err = c.conn.Notify(ctx, protocol.MethodTextDocumentDidChange, struct {
		TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
		ContentChanges []wholeText                              `json:"contentChanges"`
	}{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: v},
		ContentChanges: []wholeText{{Text: string(text)}},
	})
	if err != nil {
		return since, v, err
	}
	err = c.conn.Notify(ctx, protocol.MethodTextDocumentDidSave,
		protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	return since, v, err
}

// isOpen reports whether path was opened on the server.
func (c *client) isOpen(path string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.docs[uri.File(path)]
	return ok
}

// Timing bounds the wait for diagnostics after a change.
type Timing struct {
	// First is how long to wait for the first publication about the
	// changed file once the server is ready.
	First time.Duration
	// Quiet ends the wait once the server has published nothing for this
	// long after that first publication.
	Quiet time.Duration
	// Max bounds the whole wait, from the change.
	Max time.Duration
}

// DefaultTiming waits up to 1 s for the first publication, then for 300 ms
// of quiet, never more than 5 s in all.
var DefaultTiming = Timing{First: time.Second, Quiet: 300 * time.Millisecond, Max: 5 * time.Second}

// waitFor waits until the server has published diagnostics for u newer
// than since (and for version or later when the server says which version
// they are for) and then stayed quiet for t.Quiet, or until first (when
// nothing came) or deadline. It reports whether fresh diagnostics came.
func (c *client) waitFor(ctx context.Context, u uri.URI, since uint64, version int32, first, deadline time.Time, quiet time.Duration) bool {
	fresh := false
	for {
		c.mu.Lock()
		p := c.diags[u]
		last, wake := c.last, c.wake
		c.mu.Unlock()
		if p != nil && p.seq > since && (p.version == 0 || p.version >= version) {
			fresh = true
		}
		until := first
		if fresh {
			until = last.Add(quiet)
		}
		if until.After(deadline) {
			until = deadline
		}
		d := time.Until(until)
		if d <= 0 {
			return fresh
		}
		timer := time.NewTimer(d)
		select {
		case <-wake:
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return fresh
		case <-c.exited:
			timer.Stop()
			return fresh
		}
		timer.Stop()
	}
}

// diagnostics returns the last diagnostics published for u.
func (c *client) diagnostics(u uri.URI) []protocol.Diagnostic {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.diags[u]; p != nil {
		return p.diags
	}
	return nil
}

// errorCounts returns the number of errors last published per document.
func (c *client) errorCounts() map[uri.URI]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[uri.URI]int, len(c.diags))
	for u, p := range c.diags {
		n := 0
		for _, d := range p.diags {
			if isError(d) {
				n++
			}
		}
		out[u] = n
	}
	return out
}

// isError reports whether d is an error; a diagnostic without a severity
// counts as one.
func isError(d protocol.Diagnostic) bool {
	return d.Severity == 0 || d.Severity == protocol.DiagnosticSeverityError
}

// close asks the server to shut down and exit, and kills its process group
// when it has not ended within grace.
func (c *client) close(grace time.Duration) {
	if c.alive() {
		ctx, cancel := context.WithTimeout(context.Background(), grace)
		if c.call(ctx, protocol.MethodShutdown, nil, nil) == nil {
			_ = c.conn.Notify(ctx, protocol.MethodExit, nil)
		}
		select {
		case <-c.exited:
		case <-ctx.Done():
		}
		cancel()
	}
	c.kill()
}

// kill ends the process group at once (SIGTERM, then SIGKILL after
// killGrace) and waits for the connection to close. A language server
// keeps no state a slow exit would save.
func (c *client) kill() {
	if c.alive() {
		_ = c.proc.Signal(syscall.SIGTERM)
		select {
		case <-c.exited:
		case <-time.After(killGrace):
			_ = c.proc.Signal(syscall.SIGKILL)
		}
	}
	<-c.exited
}

// killGrace is how long a terminated server has to exit before it is
// killed.
const killGrace = 50 * time.Millisecond

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// String returns the last line or two kept, trimmed.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	if len(lines) > 3 {
		lines = lines[len(lines)-3:]
	}
	return strings.TrimSpace(strings.Join(lines, " | "))
}
