package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/codeloop/codeloop/internal/app"
	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/client/local"
	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/tui"
	"github.com/codeloop/codeloop/internal/upgrade"
)

// tuiOptions are the root command's flags: what the interface opens.
type tuiOptions struct {
	model, agent, session, prompt string
	sandbox                       string
	trustProject                  bool
	cont                          bool
	// dir is the project's local directory, for @ completion; empty when
	// attached to a server.
	dir string
	// settings are the config's tui key, autoupdate its autoupdate key.
	settings   config.TUI
	autoupdate config.Autoupdate
}

// exitHangup is the exit status after the terminal hung up (128+SIGHUP).
const exitHangup = 129

// addTUIFlags adds the interface's flags to the root command.
func addTUIFlags(root *cobra.Command, o *tuiOptions) {
	f := root.Flags()
	f.BoolVarP(&o.cont, "continue", "c", false, "continue the last session")
	f.StringVarP(&o.session, "session", "s", "", "session id to open")
	f.StringVarP(&o.model, "model", "m", "", "model to use, as provider/model")
	f.StringVar(&o.agent, "agent", "", "agent to use")
	f.StringVar(&o.prompt, "prompt", "", "prompt to send when the interface opens")
	f.BoolVar(&o.trustProject, "trust-project", false, "trust this project's own commands and settings as they are now, without asking (see codeloop trust)")
	f.StringVar(&o.sandbox, "sandbox", "", "confine shell commands: workspace-write, read-only or off (Linux; default: the config's sandbox.mode, off)")
}

// isDir reports whether p names an existing directory.
func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// tui opens the interface on the directory args name (the working
// directory when none) when standard input and output are terminals, and
// prints the help otherwise. An argument that is not a directory is an
// unknown command.
func (e *env) tui(cmd *cobra.Command, args []string, o tuiOptions) error {
	dir, err := os.Getwd()
	if err != nil {
		return err
	}
	if len(args) > 0 {
		if len(args) > 1 || !isDir(args[0]) {
			return unknownCommand(cmd, args)
		}
		if dir, err = filepath.Abs(args[0]); err != nil {
			return err
		}
	}
	if !isTerminal(e.stdout) || !e.stdinTerminal() {
		return cmd.Help()
	}
	if o.cont && o.session != "" {
		return &exitCodeError{code: exitUsage, err: errors.New("--continue and --session cannot be used together")}
	}
	if o.model != "" {
		if _, ok := app.ParseModel(o.model); !ok {
			return &exitCodeError{code: exitUsage, err: fmt.Errorf("--model %q: want provider/model", o.model)}
		}
	}
	ctx := cmd.Context()
	// The app outlives an interrupt long enough to save the session.
	opts := app.Options{Dir: dir, Dirs: e.dirs, Getenv: e.getenv, Log: e.log, Version: Version, Sandbox: o.sandbox,
		TrustProject: o.trustProject}
	a, err := app.Open(context.WithoutCancel(ctx), opts)
	if err != nil {
		return err
	}
	if a.Trust.Held() && e.askTrust(a.Trust) {
		// Trusted now: open again so the project's own commands and
		// settings apply.
		if err := a.TrustProject(); err != nil {
			a.Close()
			return err
		}
		a.Close()
		if a, err = app.Open(context.WithoutCancel(ctx), opts); err != nil {
			return err
		}
	}
	defer a.Close()
	c := local.New(a)
	defer c.Close()
	if err := runAgent(ctx, c, o.agent); err != nil {
		return err
	}
	o.dir = dir
	o.settings = a.Config.Config.Interface()
	o.autoupdate = a.Config.Config.Autoupdate
	return e.openTUI(ctx, c, o)
}

// openTUI shows the interface over c, in process or attached to a
// server, and maps how it ended to an exit status.
func (e *env) openTUI(ctx context.Context, c client.Client, o tuiOptions) error {
	if o.session != "" {
		if _, err := c.GetSession(ctx, o.session); errors.Is(err, client.ErrNotFound) {
			return &exitCodeError{code: exitError, err: fmt.Errorf("session %s does not exist; codeloop session list shows the sessions", o.session)}
		} else if err != nil {
			return err
		}
	}
	notice := e.updateNotice(ctx, o)
	err := tui.Run(ctx, tui.Options{
		Client: c, SessionID: o.session, Continue: o.cont, Model: o.model, Agent: o.agent, Prompt: o.prompt,
		NoColor: e.getenv("NO_COLOR") != "", CrashDir: e.dirs.Log(), Version: Version,
		Dir: o.dir, HistoryFile: filepath.Join(e.dirs.State, "prompt-history.jsonl"), Getenv: e.getenv,
		Theme: string(o.settings.Theme), NoMouse: !o.settings.MouseOn(), ScrollbackOnExit: o.settings.ScrollbackOnExitOn(),
		Keybinds: o.settings.Keybinds,
	})
	var crash *tui.CrashError
	switch {
	case errors.As(err, &crash):
		return &exitCodeError{code: exitError, err: crash}
	case errors.Is(err, tui.ErrHangup):
		return &exitCodeError{code: exitHangup}
	case ctx.Err() != nil:
		return &exitCodeError{code: interruptedCode(ctx)}
	}
	select {
	case line := <-notice:
		if line != "" {
			fmt.Fprintln(e.stderr, line)
		}
	default: // not known yet: the interface never waits for it
	}
	return err
}

// updateNotice looks up, in the background and at most once a day, whether
// a newer release exists; the line announcing it arrives on the channel
// ("" when there is none, the lookup failed or notices are off).
func (e *env) updateNotice(ctx context.Context, o tuiOptions) <-chan string {
	out := make(chan string, 1)
	if upgrade.Disabled(e.getenv, string(o.autoupdate)) {
		out <- ""
		return out
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	go func() {
		defer cancel()
		line, _ := upgrade.Notice(ctx, upgrade.NoticeOptions{
			Source: upgrade.NewSource(e.getenv, "codeloop/"+Version), StateFile: filepath.Join(e.dirs.State, "upgrade-check.json"),
			Current: Version, Now: time.Now(),
		})
		out <- line
	}()
	return out
}

// stdinTerminal reports whether standard input is a terminal.
func (e *env) stdinTerminal() bool {
	_, ok := e.terminal()
	return ok
}

// unknownCommand is the error for arguments that name neither a command
// nor a directory: cobra's suggestions for a mistyped command, and for
// words that read as a task, how to give codeloop one.
func unknownCommand(cmd *cobra.Command, args []string) error {
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2
	}
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
	} else {
		task := strconv.Quote(strings.Join(args, " "))
		msg += fmt.Sprintf("\n\nTo give codeloop a task, run: codeloop run %s\nor open the interface with it: codeloop --prompt %s", task, task)
	}
	return &exitCodeError{code: exitUsage, err: errors.New(msg)}
}
