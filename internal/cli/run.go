package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/codeloop/codeloop/internal/app"
	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/client/local"
)

// runOptions are the flags of codeloop run.
type runOptions struct {
	model, agent, session, format, title, command string
	sandbox                                       string
	trustProject                                  bool
	cont, fork, auto                              bool
	files                                         []string
	attach, token                                 string // run on a server (run --attach)
}

func newRunCmd(e *env) *cobra.Command {
	var o runOptions
	cmd := &cobra.Command{
		Use:   "run [message..]",
		Short: "Run one prompt without the interface and print the answer",
		Long: "Run one prompt without the interface and print the answer as it streams.\n" +
			"Text piped on standard input is appended to the message (when a message is also\n" +
			"given, only input that arrives within 200 ms is read). Permission requests are\n" +
			"rejected unless --auto is given. The exit status is 0 on success, 1 when the\n" +
			"session ends with an error or the turn is left undone (a rejected permission,\n" +
			"a file that could not be attached, an empty answer), 130 when interrupted (SIGINT) and 143 when\n" +
			"terminated (SIGTERM); in --format json the last event is then \"cancelled\".\n" +
			"Shell commands can run in an OS sandbox that keeps writes inside the project and the\n" +
			"network off: --sandbox workspace-write (see docs/sandbox.md).",
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.run(cmd.Context(), args, o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.model, "model", "m", "", "model to use, as provider/model")
	f.StringVar(&o.agent, "agent", "", "agent to use")
	f.BoolVarP(&o.cont, "continue", "c", false, "continue the last session")
	f.StringVarP(&o.session, "session", "s", "", "session id to continue")
	f.BoolVar(&o.fork, "fork", false, "fork the session before continuing (with --continue or --session)")
	f.StringVar(&o.format, "format", "default", "output format: default (formatted) or json (one event per line)")
	f.StringArrayVarP(&o.files, "file", "f", nil, "file to attach to the message (repeatable)")
	f.StringVar(&o.title, "title", "", "title of a new session (default: one the model writes)")
	f.BoolVar(&o.auto, "auto", false, "approve permission requests that no rule denies")
	f.StringVar(&o.command, "command", "", "run a slash command, with the message as its arguments")
	f.BoolVar(&o.trustProject, "trust-project", false, "trust this project's own commands and settings as they are now (for scripts that know the repository; see codeloop trust)")
	f.StringVar(&o.sandbox, "sandbox", "", "confine shell commands: workspace-write, read-only or off (Linux; default: the config's sandbox.mode, off)")
	f.StringVar(&o.attach, "attach", "", "run the prompt on a codeloop server (http://host:port or unix:///path; see codeloop serve)")
	f.StringVar(&o.token, "token", "", "the server's token, with --attach (default: $"+tokenEnv+", else the server's state file)")
	return cmd
}

// stdinGrace is how long run waits for piped input to start when the
// message is given as arguments: an input that stays silent (an open pipe
// nobody writes to) is not waited for.
const stdinGrace = 200 * time.Millisecond

// message joins the arguments and what was piped on standard input.
func (e *env) runMessage(args []string) (string, error) {
	msg := strings.Join(args, " ")
	in := e.stdin
	if f, ok := in.(*os.File); ok {
		st, err := f.Stat()
		switch {
		case err != nil || st.Mode()&os.ModeCharDevice != 0:
			in = nil // a terminal or /dev/null: nothing piped
		case msg != "" && st.Mode()&os.ModeNamedPipe != 0 && !readable(f, stdinGrace):
			in = nil // an open pipe with nothing in it
		}
	}
	if in == nil {
		return msg, nil
	}
	piped, err := io.ReadAll(in)
	if err != nil {
		return "", fmt.Errorf("reading standard input: %w", err)
	}
	if p := strings.TrimRight(string(piped), "\n"); p != "" {
		if msg == "" {
			return p, nil
		}
		return msg + "\n" + p, nil
	}
	return msg, nil
}

// runRules are added to sessions run without anyone to answer questions.
func runRules() []client.PermissionRule {
	return []client.PermissionRule{
		{Permission: "question", Pattern: "*", Action: "deny"},
		{Permission: "plan_enter", Pattern: "*", Action: "deny"},
		{Permission: "plan_exit", Pattern: "*", Action: "deny"},
	}
}

// usage marks err as a mistake in the command line (exit status 2).
func usage(err error) error { return &exitCodeError{code: exitUsage, err: err} }

func (e *env) run(ctx context.Context, args []string, o runOptions) error {
	if o.format != "default" && o.format != "json" {
		return usage(fmt.Errorf("--format %q: want default or json", o.format))
	}
	if o.fork && !o.cont && o.session == "" {
		return usage(errors.New("--fork needs --continue or --session"))
	}
	compact := app.IsCompact(o.command)
	if compact && !o.cont && o.session == "" {
		return usage(fmt.Errorf("--command %s needs --continue or --session", o.command))
	}
	if o.attach != "" && o.trustProject {
		return usage(errors.New("--trust-project is for a run in this process: a server decides trust for its project " +
			"(run codeloop trust there, or start it with codeloop serve --trust-project)"))
	}
	var model *client.ModelRef
	if o.model != "" {
		ref, ok := app.ParseModel(o.model)
		if !ok {
			return usage(fmt.Errorf("--model %q: want provider/model", o.model))
		}
		model = &client.ModelRef{ProviderID: ref.ProviderID, ModelID: ref.ModelID, Variant: ref.Variant}
	}
	text, err := e.runMessage(args)
	if err != nil {
		return err
	}
	if strings.TrimSpace(text) == "" && o.command == "" && len(o.files) == 0 {
		return usage(errors.New("a message is required: codeloop run \"what to do\""))
	}
	// On a terminal, asks are put to the user inline; elsewhere they are
	// rejected (--auto approves what no rule denies).
	var asker *inlineAsker
	if f, ok := e.stdin.(*os.File); ok && !o.auto && o.format != "json" && isTerminal(f) && isTerminal(e.stderr) {
		asker = newInlineAsker(e.stderr)
	}
	if asker != nil {
		defer asker.close()
	}
	c, closeClient, err := e.runClient(ctx, o, asker == nil)
	if err != nil {
		return err
	}
	defer closeClient()

	// What can be checked is checked before a session is written: the
	// agent, the session to continue and the files. A session made for
	// a prompt the engine refuses (an unknown command, no model) is
	// deleted again.
	if err := runAgent(ctx, c, o.agent); err != nil {
		return err
	}
	existing, err := findSession(ctx, c, o)
	if err != nil {
		return err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	files, err := attachFiles(o.files, cwd, o.attach != "")
	if err != nil {
		return usage(err)
	}
	sess, err := openSession(ctx, c, o, existing)
	if err != nil {
		return err
	}
	t := &runTurn{c: c, o: o, sessionID: sess.ID, fresh: existing == nil, asker: asker,
		compact: compact, text: text, files: files, model: model}
	return t.drive(ctx, e.stdout, e.stderr)
}

// runClient opens what run talks to: the server --attach names, or the
// engine in this process. interactive is false when no one answers
// permission requests on a terminal.
func (e *env) runClient(ctx context.Context, o runOptions, nonInteractive bool) (client.Client, func(), error) {
	if o.attach != "" {
		c, err := e.openRemote(ctx, o.attach, o.token)
		if err != nil {
			return nil, nil, err
		}
		return c, func() { c.Close() }, nil
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, nil, err
	}
	// The app outlives an interrupt long enough to save the session.
	a, err := app.Open(context.WithoutCancel(ctx), app.Options{
		Dir: cwd, Dirs: e.dirs, Getenv: e.getenv, Log: e.log, Version: Version,
		AutoApprove: o.auto, NonInteractive: nonInteractive, Sandbox: o.sandbox, NoLSPWarm: true,
		TrustProject: o.trustProject,
	})
	if err != nil {
		return nil, nil, err
	}
	reportTrust(e.stderr, a.Trust)
	reportProblems(e.stderr, a.Extensions)
	c := local.New(a)
	return c, func() {
		c.Close()
		a.Close()
	}, nil
}

// runAgent checks the --agent flag: it must name an agent that can be a
// session's own.
func runAgent(ctx context.Context, c client.Client, name string) error {
	if name == "" {
		return nil
	}
	agents, err := c.Agents(ctx)
	if err != nil {
		return err
	}
	var primary []string
	found := false
	for _, a := range agents {
		if a.Name == name {
			if a.Primary() {
				return nil
			}
			found = true
		}
		if a.Primary() && !a.Hidden {
			primary = append(primary, a.Name)
		}
	}
	if !found {
		return usage(fmt.Errorf("agent %q does not exist; the agents are %s", name, strings.Join(primary, ", ")))
	}
	return usage(fmt.Errorf("agent %q is a sub-agent: mention it in the message as @%s, or choose one of %s",
		name, name, strings.Join(primary, ", ")))
}

// findSession returns the session --session or --continue names, or nil
// for a new one. It writes nothing.
func findSession(ctx context.Context, c client.Client, o runOptions) (*client.Session, error) {
	switch {
	case o.session != "":
		s, err := c.GetSession(ctx, o.session)
		if errors.Is(err, client.ErrNotFound) {
			return nil, fmt.Errorf("session %s does not exist", o.session)
		}
		return &s, err
	case o.cont:
		list, err := c.ListSessions(ctx, client.ListSessionsOptions{Roots: true, Limit: 1})
		if err != nil {
			return nil, err
		}
		if len(list) == 0 {
			return nil, errors.New("there is no session to continue in this project")
		}
		return &list[0], nil
	}
	return nil, nil
}

// openSession makes the session the prompt goes to: a new one, a fork of
// existing, or existing itself, with the rules of a run added.
func openSession(ctx context.Context, c client.Client, o runOptions, existing *client.Session) (client.Session, error) {
	if existing == nil {
		return c.CreateSession(ctx, client.CreateSessionInput{Title: o.title, Permission: runRules(), Sandbox: o.sandbox})
	}
	sess := *existing
	if o.fork {
		var err error
		if sess, err = c.ForkSession(ctx, sess.ID, client.ForkSessionInput{}); err != nil {
			return sess, err
		}
	}
	return c.UpdateSession(ctx, sess.ID, client.UpdateSessionInput{Permission: runRules(), Sandbox: o.sandbox})
}
