package cli

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/codeloop/codeloop/internal/app"
	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/client/local"
	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/server"
	"github.com/codeloop/codeloop/internal/web"
)

// serveOptions are the flags of codeloop serve.
type serveOptions struct {
	port               int
	hostname, socket   string
	token, sandbox     string
	cors               []string
	insecureListen     bool
	trustProject       bool
	grace, abortWindow time.Duration
	// web serves the browser front end (codeloop web); noOpen leaves the
	// browser closed.
	web, noOpen bool
}

// defaultPort is where codeloop serve listens unless told otherwise.
const defaultPort = 4096

// tokenEnv gives the server's token instead of a random one.
const tokenEnv = "CODELOOP_SERVER_TOKEN"

func newServeCmd(e *env) *cobra.Command {
	o := serveOptions{grace: 10 * time.Second, abortWindow: 10 * time.Second}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the project over HTTP for scripts, editors and codeloop attach",
		Long: "Serve the project in the working directory over HTTP: OpenCode's routes, live events\n" +
			"on GET /event, the API's description on GET /doc (see docs/server.md).\n\n" +
			"The server listens on 127.0.0.1:4096 (--port 0 picks a free port) or on a Unix socket\n" +
			"(--socket). Every request needs its token: a random one per start unless --token or\n" +
			"CODELOOP_SERVER_TOKEN gives one. The URL and token are written, readable by you alone,\n" +
			"to a state file that codeloop attach reads. Only loopback addresses are served unless\n" +
			"--insecure-listen is given. SIGINT, SIGTERM or SIGHUP stops it, and so does the end of\n" +
			"the reader of its output (codeloop serve | head -1): running sessions are interrupted,\n" +
			"what they streamed is saved, and the state file is removed.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.serve(cmd, o)
		},
	}
	f := cmd.Flags()
	serverFlags(f, &o)
	f.StringVar(&o.socket, "socket", "", "listen on this Unix socket instead of a port")
	f.StringArrayVar(&o.cors, "cors", nil, "a browser origin allowed to call the server, as https://host[:port] (repeatable; adds to the config's server.cors)")
	return cmd
}

// serverFlags are the flags codeloop serve and codeloop web share.
func serverFlags(f *pflag.FlagSet, o *serveOptions) {
	f.IntVar(&o.port, "port", defaultPort, "port to listen on, when the config's server.port does not say; 0 picks a free one")
	f.StringVar(&o.hostname, "hostname", "127.0.0.1", "address to listen on, when the config's server.hostname does not say")
	f.StringVar(&o.token, "token", "", "the token API requests must carry (default: $"+tokenEnv+", else a random one)")
	f.BoolVar(&o.insecureListen, "insecure-listen", false, "allow a --hostname that is not a loopback address")
	f.BoolVar(&o.trustProject, "trust-project", false, "trust this project's own commands and settings as they are now (see codeloop trust)")
	f.StringVar(&o.sandbox, "sandbox", "", "confine shell commands: workspace-write, read-only or off (Linux; default: the config's sandbox.mode, off)")
}

// listenSpec is where the server listens and which Host headers name it.
type listenSpec struct {
	network, address string
	url              string
	hosts            []string // nil: any
}

// listenPlan works out where to listen from the flags and the config.
func listenPlan(cmd *cobra.Command, o serveOptions, cfg config.Server) (listenSpec, error) {
	if o.socket != "" {
		if cmd.Flags().Changed("port") || cmd.Flags().Changed("hostname") {
			return listenSpec{}, &exitCodeError{code: exitUsage, err: errors.New("--socket cannot be used with --port or --hostname")}
		}
		path, err := filepath.Abs(o.socket)
		if err != nil {
			return listenSpec{}, err
		}
		return listenSpec{network: "unix", address: path, url: "unix://" + path, hosts: []string{"localhost"}}, nil
	}
	host, port := o.hostname, o.port
	if !cmd.Flags().Changed("hostname") && cfg.Hostname != "" {
		host = cfg.Hostname
	}
	if !cmd.Flags().Changed("port") && cfg.Port != nil {
		port = *cfg.Port
	}
	if port < 0 || port > 65535 {
		return listenSpec{}, &exitCodeError{code: exitUsage, err: fmt.Errorf("--port %d: want 0 to 65535", port)}
	}
	loopback := host == "localhost"
	if ip := net.ParseIP(strings.Trim(host, "[]")); ip != nil {
		loopback = ip.IsLoopback()
	}
	if !loopback && !o.insecureListen {
		return listenSpec{}, &exitCodeError{code: exitUsage, err: fmt.Errorf(
			"refusing to listen on %s: it is not a loopback address, so other machines could reach the server, "+
				"and whoever holds the token can run commands on this one. Serve on 127.0.0.1 and reach it through "+
				"an SSH tunnel, or give --insecure-listen to accept the risk", host)}
	}
	if host == "localhost" {
		host = "127.0.0.1"
	}
	return listenSpec{network: "tcp", address: net.JoinHostPort(strings.Trim(host, "[]"), strconv.Itoa(port))}, nil
}

// listen opens the listener and fills in the URL and the accepted hosts.
func (spec *listenSpec) listen() (net.Listener, error) {
	if spec.network == "unix" {
		dir := filepath.Dir(spec.address)
		if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return nil, fmt.Errorf("making the socket's directory: %w", err)
			}
		}
		if _, err := os.Lstat(spec.address); err == nil {
			if c, err := net.DialTimeout("unix", spec.address, time.Second); err == nil {
				c.Close()
				return nil, fmt.Errorf("a server already listens on %s", spec.address)
			}
			_ = os.Remove(spec.address) // left by a server that died
		}
		ln, err := listenPrivateSocket(spec.address)
		if err != nil {
			return nil, fmt.Errorf("listening on %s: %w", spec.address, err)
		}
		return ln, os.Chmod(spec.address, 0o600)
	}
	ln, err := net.Listen("tcp", spec.address)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, fmt.Errorf("%s is in use: give another --port, or --port 0 for a free one", spec.address)
		}
		return nil, fmt.Errorf("listening on %s: %w", spec.address, err)
	}
	addr := ln.Addr().(*net.TCPAddr)
	port := strconv.Itoa(addr.Port)
	spec.url = "http://" + net.JoinHostPort(addr.IP.String(), port)
	switch {
	case addr.IP.IsLoopback():
		spec.hosts = []string{net.JoinHostPort(addr.IP.String(), port), "localhost:" + port}
	case !addr.IP.IsUnspecified():
		spec.hosts = []string{net.JoinHostPort(addr.IP.String(), port)}
	default:
		// Every address: the names it is reached by are unknown.
		spec.url = "http://127.0.0.1:" + port
	}
	return ln, nil
}

// serverToken is the token given by flag or environment, or a random one.
func (e *env) serverToken(o serveOptions) (string, error) {
	t := o.token
	if t == "" {
		t = e.getenv(tokenEnv)
	}
	if t != "" {
		if len(t) < 16 {
			return "", &exitCodeError{code: exitUsage, err: errors.New("the server's token must have at least 16 characters; leave it unset for a random one")}
		}
		return t, nil
	}
	// A token that starts with "-" would read as a flag where a client
	// takes it as an argument (opencode attach -p TOKEN): draw again.
	for {
		b := make([]byte, 32)
		if _, err := rand.Read(b); err != nil {
			return "", err
		}
		if t := base64.RawURLEncoding.EncodeToString(b); t[0] != '-' {
			return t, nil
		}
	}
}

func (e *env) serve(cmd *cobra.Command, o serveOptions) error {
	ctx, stop := e.serveContext(cmd.Context())
	defer stop()
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	loaded, _, err := app.LoadConfig(ctx, app.Options{Dir: cwd, Dirs: e.dirs, Getenv: e.getenv, Log: e.log,
		TrustProject: o.trustProject})
	if err != nil {
		return err
	}
	spec, err := listenPlan(cmd, o, loaded.Config.Server)
	if err != nil {
		return err
	}
	token, err := e.serverToken(o)
	if err != nil {
		return err
	}
	// The commands the server runs (the model's, hooks, MCP servers) do not
	// inherit the token: a confined command holding it could have the
	// server run one that is not.
	if err := os.Unsetenv(tokenEnv); err != nil {
		return fmt.Errorf("removing %s from the environment: %w", tokenEnv, err)
	}
	ln, err := spec.listen()
	if err != nil {
		return err
	}
	defer ln.Close()
	if spec.network == "unix" {
		defer os.Remove(spec.address)
	}

	// The app outlives the stop long enough to save the sessions.
	a, err := app.Open(context.WithoutCancel(ctx), app.Options{
		Dir: cwd, Dirs: e.dirs, Getenv: e.getenv, Log: e.log, Version: Version, Sandbox: o.sandbox,
		TrustProject: o.trustProject,
	})
	if err != nil {
		return err
	}
	defer a.Close()
	reportTrust(e.stderr, a.Trust)
	lc := local.New(a)
	defer lc.Close()
	out := e.stdout
	opts := server.Options{
		Token: token, Hosts: spec.hosts, Origins: append(append([]string(nil), loaded.Config.Server.CORS...), o.cors...),
		Version: Version, Log: e.log,
	}
	var front *web.Front
	if o.web {
		out = &lockedWriter{w: e.stdout}
		front = webFront(out, spec.url)
		opts.Web = front
	}
	srv, err := server.New(lc, opts)
	if err != nil {
		return err
	}
	statePath, err := writeServerState(e.dirs.State, serverState{
		URL: spec.url, Token: token, PID: os.Getpid(), Directory: a.Dir, Started: time.Now().UnixMilli(),
	})
	if err != nil {
		return err
	}
	defer os.Remove(statePath)
	e.log.Info("server: listening", "url", spec.url, "directory", a.Dir)
	fmt.Fprintf(out, "codeloop server listening on %s\n", spec.url)
	fmt.Fprintf(out, "its token is in %s\n", statePath)
	if spec.hosts == nil {
		fmt.Fprintf(e.stderr, "Warning: serving every network address; anyone who obtains the token can run commands here\n")
	}
	if front != nil {
		if err := printLogin(ctx, out, front, spec.url, !o.noOpen); err != nil {
			return err
		}
	}
	err = srv.Serve(ctx, ln, o.grace)
	stopSessions(lc, o.abortWindow)
	if err != nil && ctx.Err() == nil {
		return err
	}
	fmt.Fprintln(out, "codeloop server stopped")
	return nil
}

// serveContext returns ctx, also cancelled, with the signal as its cause,
// by SIGHUP, and by the loss of the reader of the standard output when it
// is a pipe or a socket (a SIGPIPE is only taken as that loss when the
// standard output is broken: a client that drops its connection raises
// one too). The server then stops as on SIGINT or SIGTERM, which the
// context given already carries, and removes its state file. stop ends
// the watching.
func (e *env) serveContext(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	out, _ := e.stdout.(*os.File)
	sigs := make(chan os.Signal, 4)
	if hs := hangupSignals(); len(hs) > 0 { // none would mean every signal
		signal.Notify(sigs, hs...)
	}
	unwatch := watchOutput(out, func() { cancel(&SignalError{Signal: syscall.SIGPIPE}) })
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				if s != syscall.SIGPIPE || outputBroken(out) {
					cancel(&SignalError{Signal: s})
				}
			case <-done:
				return
			}
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		unwatch()
		cancel(nil)
	}
}

// stopSessions interrupts the sessions still running and waits, up to
// window, for them to save what they streamed and go idle.
func stopSessions(c client.Client, window time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), window)
	defer cancel()
	ev, err := c.Subscribe(ctx, client.EventFilter{Types: []string{client.TypeSessionStatus}})
	if err != nil {
		return
	}
	defer ev.Close()
	busy, err := c.Status(ctx)
	if err != nil {
		return
	}
	for id := range busy {
		_ = c.Abort(ctx, id)
	}
	for len(busy) > 0 {
		e, err := ev.Next(ctx)
		if err != nil {
			return
		}
		if st, ok := e.(client.SessionStatusEvent); ok && st.Status.Type == client.StatusIdle {
			delete(busy, st.SessionID)
		}
	}
}
