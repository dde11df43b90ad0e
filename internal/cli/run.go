package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/codeloop/codeloop/internal/agent"
	"github.com/codeloop/codeloop/internal/app"
	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/id"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/session"
	"github.com/codeloop/codeloop/internal/store"
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
func runRules() permission.Ruleset {
	return permission.Ruleset{
		{Permission: "question", Pattern: "*", Action: permission.Deny},
		{Permission: "plan_enter", Pattern: "*", Action: permission.Deny},
		{Permission: "plan_exit", Pattern: "*", Action: permission.Deny},
	}
}

func (e *env) run(ctx context.Context, args []string, o runOptions) error {
	if o.format != "default" && o.format != "json" {
		return &exitCodeError{code: exitUsage, err: fmt.Errorf("--format %q: want default or json", o.format)}
	}
	if o.fork && !o.cont && o.session == "" {
		return &exitCodeError{code: exitUsage, err: errors.New("--fork needs --continue or --session")}
	}
	compact := o.command == "compact" || o.command == "summarize"
	if compact && !o.cont && o.session == "" {
		return &exitCodeError{code: exitUsage, err: fmt.Errorf("--command %s needs --continue or --session", o.command)}
	}
	text, err := e.runMessage(args)
	if err != nil {
		return err
	}
	if strings.TrimSpace(text) == "" && o.command == "" && len(o.files) == 0 {
		return &exitCodeError{code: exitUsage, err: errors.New("a message is required: codeloop run \"what to do\"")}
	}
	if o.attach != "" {
		return e.runAttached(ctx, o, text)
	}
	var model *message.ModelRef
	if o.model != "" {
		ref, ok := app.ParseModel(o.model)
		if !ok {
			return &exitCodeError{code: exitUsage, err: fmt.Errorf("--model %q: want provider/model", o.model)}
		}
		model = &ref
	}
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	// The app outlives an interrupt long enough to save the session.
	// On a terminal, asks are put to the user inline; elsewhere they are
	// rejected (--auto approves what no rule denies).
	var asker *inlineAsker
	if f, ok := e.stdin.(*os.File); ok && !o.auto && o.format != "json" && isTerminal(f) && isTerminal(e.stderr) {
		asker = newInlineAsker(e.stderr, nil)
	}
	a, err := app.Open(context.WithoutCancel(ctx), app.Options{
		Dir: cwd, Dirs: e.dirs, Getenv: e.getenv, Log: e.log, Version: Version,
		AutoApprove: o.auto, NonInteractive: asker == nil, Sandbox: o.sandbox, NoLSPWarm: true,
		TrustProject: o.trustProject,
	})
	if err != nil {
		return err
	}
	defer a.Close()
	reportTrust(e.stderr, a.Trust)
	reportProblems(e.stderr, a.Extensions)

	// Everything that can fail is checked before a session is written:
	// the agent, the session to continue, the command, the files and the
	// model.
	if err := runAgent(a, o.agent); err != nil {
		return &exitCodeError{code: exitUsage, err: err}
	}
	existing, err := e.findSession(ctx, a, o)
	if err != nil {
		return err
	}
	in := session.PromptInput{Agent: o.agent, Model: model}
	if !compact {
		if in, err = e.runPrompt(ctx, a, in, o, text, cwd); err != nil {
			return err
		}
		ref, err := a.PickModel(ctx, in.Model, in.Agent, existing)
		if err != nil {
			return &exitCodeError{code: exitError, err: err}
		}
		in.Model = &ref
	}
	sess, err := e.openSession(ctx, a, o, existing)
	if err != nil {
		return err
	}
	in.SessionID = sess.ID
	fresh := existing == nil
	// Message ids ascend: every message this run writes sorts after since.
	since := id.Ascending(id.Message)
	// Standard output is buffered and written out whenever the events
	// waiting are handled: at once when the model is slow, in batches when
	// it streams faster than a write per delta.
	stdout := bufio.NewWriterSize(e.stdout, 64<<10)
	defer stdout.Flush()
	out := newRunOutput(stdout, e.stderr, o.format == "json", sess.ID, since)
	out.flush = stdout.Flush
	var answers chan inlineAnswer
	var childAsks <-chan bus.Event // sub-agents' asks: they come from sessions of their own
	if asker != nil {
		asker.reply = a.Permissions.Reply
		answers = asker.answers
		out.interactive = true
		defer asker.close()
		asks := a.Bus.Subscribe(bus.Filter{Types: []string{bus.PermissionAsked, bus.PermissionReplied}}, 256)
		defer asks.Close()
		childAsks = asks.C
	}
	sub := a.Bus.Subscribe(bus.Filter{SessionID: sess.ID}, 8192)
	defer sub.Close()

	done := make(chan error, 1)
	go func() {
		wctx := context.WithoutCancel(ctx)
		if compact {
			done <- a.Engine.Compact(wctx, sess.ID)
			return
		}
		// The command's allowed tools approve its own turn only: the
		// rules are kept on its message, not on the session, so nothing
		// outlives the turn, not even a killed run.
		_, err := a.SendPrompt(wctx, in)
		if err != nil {
			if fresh {
				_ = a.Sessions.Delete(wctx, sess.ID) // nothing was said in it
			}
			done <- err
			return
		}
		_, err = a.Engine.Wait(wctx, sess.ID)
		done <- err
	}()

	interrupted := false
	var loopErr error
	stop := ctx.Done()
wait:
	for {
		select {
		case ev := <-sub.C:
			if !hookNotice(out, ev) {
				out.event(ev)
			}
			if len(sub.C) == 0 {
				out.flushStdout()
			}
			if asker != nil {
				switch p := ev.Properties.(type) {
				case permission.Request:
					out.flushStdout()
					asker.asked(p)
				case permission.Replied:
					asker.replied(p.RequestID)
				}
			}
		case ans := <-answers:
			asker.answer(ctx, ans)
		case ev := <-childAsks:
			if ev.SessionID == sess.ID {
				continue // the session's own, handled above
			}
			switch p := ev.Properties.(type) {
			case permission.Request:
				out.flushStdout()
				asker.asked(p)
			case permission.Replied:
				asker.replied(p.RequestID)
			}
		case <-stop:
			interrupted, stop = true, nil
			a.Engine.Cancel(sess.ID)
		case loopErr = <-done:
			break wait
		}
	}
	for drained := false; !drained; {
		select {
		case ev := <-sub.C:
			if !hookNotice(out, ev) {
				out.event(ev)
			}
		default:
			drained = true
		}
	}
	var unfinished string
	if !interrupted && loopErr == nil {
		// Another process may have answered while this one waited.
		if msgs, err := a.Sessions.MessagesFrom(context.WithoutCancel(ctx), sess.ID, out.since); err == nil {
			out.catchUp(msgs)
			unfinished = out.incomplete(msgs)
		}
	}
	out.finish()
	out.flushStdout()
	switch {
	case interrupted:
		if o.format == "json" {
			out.emit("cancelled", map[string]any{"signal": signalName(ctx)})
			out.flushStdout()
		}
		return &exitCodeError{code: interruptedCode(ctx)}
	case loopErr != nil:
		if !out.failed { // the loop's own error event may have said it already
			out.error(message.FromError(loopErr))
		}
		return &exitCodeError{code: exitError}
	case out.failed:
		return &exitCodeError{code: exitError}
	case unfinished != "":
		if o.format == "json" {
			out.emit("incomplete", map[string]any{"reason": unfinished})
			out.flushStdout()
		}
		return &exitCodeError{code: exitError, err: errors.New(unfinished)}
	}
	return nil
}

// runAgent checks the --agent flag: it must name an agent that can be a
// session's own.
func runAgent(a *app.App, name string) error {
	if name == "" {
		return nil
	}
	ag, err := a.Agents.Lookup(name)
	if err != nil {
		return err
	}
	if ag.Primary() {
		return nil
	}
	var primary []string
	for _, p := range a.Agents.List() {
		if p.Primary() && !p.Hidden {
			primary = append(primary, p.Name)
		}
	}
	return fmt.Errorf("agent %q is a sub-agent: mention it in the message as @%s, or choose one of %s",
		name, name, strings.Join(primary, ", "))
}

// findSession returns the session --session or --continue names, or nil
// for a new one. It writes nothing.
func (e *env) findSession(ctx context.Context, a *app.App, o runOptions) (*session.Info, error) {
	switch {
	case o.session != "":
		sess, err := a.Sessions.Get(ctx, o.session)
		if errors.Is(err, store.ErrNotFound) {
			return nil, fmt.Errorf("session %s does not exist", o.session)
		}
		return &sess, err
	case o.cont:
		list, err := a.Sessions.List(ctx, store.SessionFilter{ProjectID: a.ProjectID, RootsOnly: true, Limit: 1})
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
func (e *env) openSession(ctx context.Context, a *app.App, o runOptions, existing *session.Info) (session.Info, error) {
	if existing == nil {
		return a.Sessions.Create(ctx, session.CreateInput{ProjectID: a.ProjectID, Directory: a.Dir, Title: o.title, Permission: runRules()})
	}
	sess := *existing
	if o.fork {
		var err error
		if sess, err = a.Sessions.Fork(ctx, sess.ID, ""); err != nil {
			return sess, err
		}
	}
	return a.Sessions.Update(ctx, sess.ID, func(s *session.Info) {
		for _, r := range runRules() {
			found := false
			for _, have := range s.Permission {
				found = found || have == r
			}
			if !found {
				s.Permission = append(s.Permission, r)
			}
		}
	})
}

// runPrompt fills in the message: the expanded command (with the tools it
// pre-approves for its turn in Allow), or the text and what it mentions,
// then the attached files.
func (e *env) runPrompt(ctx context.Context, a *app.App, in session.PromptInput, o runOptions, text, cwd string) (session.PromptInput, error) {
	if o.command != "" {
		var err error
		if in, err = a.ExpandPrompt(ctx, in, o.command, text); err != nil {
			return in, &exitCodeError{code: exitUsage, err: err}
		}
	} else if strings.TrimSpace(text) != "" {
		// @ mentions attach files (relative to the working directory, as
		// --file does) and hand the request to sub-agents.
		in.Parts = append(in.Parts, session.TextPart(text))
		in.Parts = append(in.Parts, a.Mentions(text, cwd, true)...)
	}
	parts, err := attachFiles(o.files, cwd)
	if err != nil {
		return in, &exitCodeError{code: exitUsage, err: err}
	}
	in.Parts = append(in.Parts, parts...)
	return in, nil
}

// attachFiles turns the --file arguments into file parts with file: URLs,
// which the session reads when it stores the message: directories are
// listed, images and PDFs sent as data, other files read as text.
func attachFiles(names []string, cwd string) ([]message.Part, error) {
	var parts []message.Part
	for _, n := range names {
		p := n
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("--file %s: %w", n, err)
		}
		mt := "text/plain"
		if st.IsDir() {
			mt = agent.MimeDirectory
		} else if m, _, _ := strings.Cut(mime.TypeByExtension(filepath.Ext(p)), ";"); strings.HasPrefix(m, "image/") || m == "application/pdf" {
			mt = m
		}
		u := url.URL{Scheme: "file", Path: filepath.ToSlash(p)}
		parts = append(parts, &message.FilePart{Mime: mt, Filename: filepath.Base(p), URL: u.String()})
	}
	return parts, nil
}
