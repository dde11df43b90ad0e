package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/codeloop/codeloop/internal/app"
	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/hook"
)

func newTrustCmd(e *env) *cobra.Command {
	var revoke, check bool
	cmd := &cobra.Command{
		Use:   "trust",
		Short: "Let this project's hooks and custom tools run",
		Long: "Hooks and custom tools defined in a project's own files (.claude/settings.json,\n" +
			".claude/settings.local.json, the project's codeloop or opencode config, .codeloop/tools)\n" +
			"do not run until you trust the project. codeloop trust lists them and trusts them as\n" +
			"they are now; when they change (a new hook, an edited script or tool) they stop\n" +
			"running until you trust the project again. Hooks and tools of your own user\n" +
			"configuration always run. See docs/hooks.md.",
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
			x := a.Extensions
			switch {
			case check:
				describeTrust(e.stdout, x)
				if x.State != hook.Trusted && x.Untrusted() {
					return &exitCodeError{code: exitError}
				}
				return nil
			case revoke:
				if err := a.RevokeTrust(); err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "%s is no longer trusted: its hooks and custom tools do not run.\n", x.Dir)
				return nil
			}
			describeTrust(e.stdout, x)
			if err := a.TrustProject(); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "Trusted %s: its hooks and custom tools run from the next start.\n", x.Dir)
			return nil
		},
	}
	cmd.Flags().BoolVar(&revoke, "revoke", false, "stop trusting this project")
	cmd.Flags().BoolVar(&check, "check", false, "only show what would run and whether the project is trusted (exit status 1 when not)")
	return cmd
}

// describeTrust lists the project's hooks and tools and its trust.
func describeTrust(w io.Writer, x *app.Extensions) {
	state := map[hook.TrustState]string{hook.Untrusted: "not trusted", hook.Trusted: "trusted",
		hook.Changed: "trusted before, but its hooks or tools changed since"}[x.State]
	fmt.Fprintf(w, "Project %s: %s.\n", x.Dir, state)
	if len(x.Skipped) > 0 {
		fmt.Fprintln(w, "Hooks from the project's files:")
		for _, h := range x.Skipped {
			fmt.Fprintf(w, "  %s %s: %s (%s)\n", h.Event, matcherLabel(h.Matcher), h.Command, rel(x.Dir, h.Origin))
		}
	}
	if len(x.SkippedTools) > 0 {
		fmt.Fprintln(w, "Custom tools from the project:")
		for _, t := range x.SkippedTools {
			fmt.Fprintf(w, "  %s\n", rel(x.Dir, t))
		}
	}
}

func matcherLabel(m string) string {
	if m == "" {
		return "(all)"
	}
	return "[" + m + "]"
}

func rel(dir, p string) string {
	if r, err := filepath.Rel(dir, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

// reportTrust tells a run's user which of the project's hooks and tools
// were skipped and how to let them run.
func reportTrust(w io.Writer, x *app.Extensions) {
	if x == nil || !x.Untrusted() {
		return
	}
	var what []string
	if n := len(x.Skipped); n > 0 {
		what = append(what, countOf(n, "hook"))
	}
	if n := len(x.SkippedTools); n > 0 {
		what = append(what, countOf(n, "custom tool"))
	}
	why := "this project is not trusted"
	if x.State == hook.Changed {
		why = "they changed since you trusted this project"
	}
	fmt.Fprintf(w, "skipped the project's %s: %s; review them with `codeloop trust --check`, then run `codeloop trust`\n",
		strings.Join(what, " and "), why)
	for _, h := range x.Skipped {
		fmt.Fprintf(w, "  skipped %s hook %s (%s)\n", h.Event, h.Command, rel(x.Dir, h.Origin))
	}
	for _, t := range x.SkippedTools {
		fmt.Fprintf(w, "  skipped tool %s\n", rel(x.Dir, t))
	}
}

func countOf(n int, s string) string {
	if n == 1 {
		return "1 " + s
	}
	return fmt.Sprintf("%d %ss", n, s)
}

// hookNotice prints a hook's notice for a run; it reports whether ev was
// one.
func hookNotice(out *runOutput, ev bus.Event) bool {
	n, ok := ev.Properties.(hook.Notice)
	if !ok || ev.Type != app.HookNotice {
		return false
	}
	if out.json {
		out.emit("hook", map[string]any{"event": n.Event, "command": n.Command, "error": n.Error, "text": n.Text})
		return true
	}
	out.endLine()
	out.flushStdout()
	color := "2"
	if n.Error {
		color = "33"
	}
	fmt.Fprintln(out.stderr, out.paint(color, n.String()))
	return true
}

// askTrust asks on the terminal, before the interface opens, whether to
// trust a project whose own hooks or tools would not run, and reports the
// answer. Anything but yes leaves them off.
func (e *env) askTrust(x *app.Extensions) bool {
	describeTrust(e.stderr, x)
	fmt.Fprint(e.stderr, "Trust this project and let them run? They run commands on your machine. [y/N] ")
	line, _ := bufio.NewReader(e.stdin).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	fmt.Fprintln(e.stderr, "Not trusted: the project's hooks and tools stay off (`codeloop trust` changes that).")
	return false
}
