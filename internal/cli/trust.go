package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/codeloop/codeloop/internal/app"
	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/trust"
)

func newTrustCmd(e *env) *cobra.Command {
	var revoke, check bool
	cmd := &cobra.Command{
		Use:   "trust",
		Short: "Let this project's own commands and settings apply",
		Long: "A project's own files can name commands for codeloop to run (MCP servers, language\n" +
			"servers, formatters, hooks, custom tools, a shell, the shell snippets of its command\n" +
			"templates) and settings that loosen a protection (permission rules, the sandbox, the\n" +
			"server's exposure, a provider's address). None of them applies until you trust the\n" +
			"project: your own configuration wins, and only what makes codeloop stricter is taken.\n" +
			"codeloop trust lists them and trusts the project as its files are now; when one of\n" +
			"those files changes, codeloop says what changed and holds them back again until you\n" +
			"trust it again. See docs/security.md.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cwd, err := os.Getwd()
			if err != nil {
				return err
			}
			a, err := app.Open(cmd.Context(), app.Options{Dir: cwd, Dirs: e.dirs, Getenv: e.getenv, Log: e.log,
				Version: Version, NoMCP: true, NonInteractive: true})
			if err != nil {
				return err
			}
			defer a.Close()
			t := a.Trust
			switch {
			case check:
				describeTrust(e.stdout, t)
				if t.Held() {
					return &exitCodeError{code: exitError}
				}
				return nil
			case revoke:
				if err := a.RevokeTrust(); err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "%s is no longer trusted: its own commands and settings are held back.\n", t.Dir)
				return nil
			}
			describeTrust(e.stdout, t)
			if err := a.TrustProject(); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "Trusted %s: its own commands and settings apply from the next start.\n", t.Dir)
			return nil
		},
	}
	cmd.Flags().BoolVar(&revoke, "revoke", false, "stop trusting this project")
	cmd.Flags().BoolVar(&check, "check", false, "only list what the project's files would run or loosen and whether it is trusted (exit status 1 when something is held back)")
	return cmd
}

// describeTrust says whether the project is trusted, what changed since,
// and lists every item of its own files: kind, name, command line or
// value, file and line.
func describeTrust(w io.Writer, t *app.Trust) {
	if msg := t.Warning(); msg != "" {
		fmt.Fprintln(w, msg)
	}
	fmt.Fprintf(w, "Project %s: %s.\n", t.Dir, t.Verdict.State)
	for _, c := range t.Verdict.Changes {
		fmt.Fprintf(w, "  %s\n", c)
	}
	if len(t.Items) == 0 {
		fmt.Fprintln(w, "Its files name no commands and loosen no setting.")
		return
	}
	if t.Verdict.Trusted() {
		fmt.Fprintln(w, "What its files make codeloop run or loosen:")
	} else {
		fmt.Fprintln(w, "Held back until you trust it:")
	}
	for _, it := range t.Items {
		fmt.Fprintf(w, "  %s\n", t.Line(it))
	}
}

// reportTrust tells a run's user, in one line, what of the project's own
// files was held back and how to let it apply.
func reportTrust(w io.Writer, t *app.Trust) {
	if msg := t.Warning(); msg != "" {
		fmt.Fprintln(w, msg)
	}
	if !t.Held() {
		return
	}
	why := "this project is not trusted"
	if t.Verdict.State == trust.Changed {
		why = "its files changed since you trusted it (" + strings.Join(t.Verdict.Changes, ", ") + ")"
	}
	fmt.Fprintf(w, "skipped the project's %s: %s; review them with `codeloop trust --check`, then run `codeloop trust` (or pass --trust-project)\n",
		trust.Summary(t.Items), why)
}

// askTrust asks on the terminal, before the interface opens, whether to
// trust a project whose own files name commands or loosen settings, and
// reports the answer: trust, not now, or show the details first. Anything
// but trust leaves them held back.
func (e *env) askTrust(t *app.Trust) bool {
	in := bufio.NewReader(e.stdin)
	fmt.Fprintf(e.stderr, "This project's files would make codeloop run commands or loosen settings (%s).\n", trust.Summary(t.Items))
	if t.Verdict.State == trust.Changed {
		fmt.Fprintf(e.stderr, "You trusted it before, but these files changed since: %s.\n", strings.Join(t.Verdict.Changes, ", "))
	}
	for {
		fmt.Fprint(e.stderr, "Trust this project? They run on your machine. [t]rust, [n]ot now, [d]etails: ")
		line, err := in.ReadString('\n')
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "t", "trust", "y", "yes":
			return true
		case "d", "details":
			describeTrust(e.stderr, t)
			if err == nil {
				continue
			}
		}
		fmt.Fprintln(e.stderr, "Not trusted: the project's own commands and settings stay held back (`codeloop trust` changes that).")
		return false
	}
}

// loadConfig loads the config in force for dir: the project's own
// commands and settings held back unless the user trusts it.
func (e *env) loadConfig(ctx context.Context, dir string) (*config.Loaded, error) {
	loaded, _, err := app.LoadConfig(ctx, app.Options{Dir: dir, Dirs: e.dirs, Getenv: e.getenv, Log: e.log})
	return loaded, err
}

// reportProblems says, a line each, which hooks and custom tools were left
// out because they are broken or cannot run here (a TypeScript tool with
// no runtime that reads it, say).
func reportProblems(w io.Writer, x *app.Extensions) {
	if x == nil {
		return
	}
	for _, p := range x.Problems {
		fmt.Fprintln(w, "warning: "+p)
	}
}
