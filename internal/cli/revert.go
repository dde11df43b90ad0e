package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/codeloop/codeloop/internal/app"
	"github.com/codeloop/codeloop/internal/snapshot"
)

// openEngine opens the project's app with its engine, for commands that
// change sessions and files but run no model: no MCP server is started and
// nothing can be asked.
func (e *env) openEngine(ctx context.Context) (*app.App, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	return app.Open(ctx, app.Options{Dir: cwd, Dirs: e.dirs, Getenv: e.getenv, Log: e.log, Version: Version,
		NonInteractive: true, NoMCP: true})
}

// sessionRevertCmds are `session diff`, `session revert` and `session
// unrevert`.
func sessionRevertCmds(e *env) []*cobra.Command {
	var message, format string
	diff := &cobra.Command{
		Use:   "diff [session-id]",
		Short: "Show the file changes of a session (the latest when no id is given), or of one message",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "patch" && format != "json" && format != "stat" {
				return &exitCodeError{code: exitUsage, err: fmt.Errorf("--format %q: want patch, stat or json", format)}
			}
			ctx := cmd.Context()
			a, err := e.openEngine(ctx)
			if err != nil {
				return err
			}
			defer a.Close()
			id, err := sessionArg(ctx, a, args)
			if err != nil {
				return err
			}
			diffs, err := a.Engine.Diff(ctx, id, message)
			if err != nil {
				return err
			}
			switch format {
			case "json":
				if diffs == nil {
					diffs = []snapshot.FileDiff{}
				}
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(diffs)
			case "stat":
				for _, d := range diffs {
					fmt.Fprintf(e.stdout, "%s\t+%d -%d\t%s\n", d.Status, d.Additions, d.Deletions, relTo(a.Worktree, d.File))
				}
			default:
				for _, d := range diffs {
					fmt.Fprint(e.stdout, d.Patch)
				}
			}
			if len(diffs) == 0 {
				fmt.Fprintln(e.stderr, "No file changes recorded.")
			}
			return nil
		},
	}
	diff.Flags().StringVar(&message, "message", "", "only the changes of this message")
	diff.Flags().StringVar(&format, "format", "patch", "output format: patch, stat or json")

	var force bool
	revert := &cobra.Command{
		Use:   "revert <session-id> <message-id>",
		Short: "Restore the files changed from a message on, and hide those messages until unrevert or the next prompt",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			a, err := e.openEngine(ctx)
			if err != nil {
				return err
			}
			defer a.Close()
			files, err := a.Revert(ctx, args[0], args[1], force)
			if err != nil {
				return err
			}
			for _, f := range files {
				fmt.Fprintf(e.stdout, "restored %s\n", relTo(a.Worktree, f))
			}
			fmt.Fprintf(e.stdout, "Reverted session %s to before message %s (%d file(s) restored). "+
				"`codeloop session unrevert %s` undoes it; the next prompt makes it final.\n",
				args[0], args[1], len(files), args[0])
			return nil
		},
	}
	revert.Flags().BoolVar(&force, "force", false, "overwrite files changed since the agent wrote them")

	var uforce bool
	unrevert := &cobra.Command{
		Use:   "unrevert <session-id>",
		Short: "Undo a session's revert: bring back its files and messages",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			a, err := e.openEngine(ctx)
			if err != nil {
				return err
			}
			defer a.Close()
			reverted, err := a.Unrevert(ctx, args[0], uforce)
			if err != nil {
				return err
			}
			if !reverted {
				fmt.Fprintf(e.stdout, "Session %s is not reverted.\n", args[0])
				return nil
			}
			fmt.Fprintf(e.stdout, "Unreverted session %s: its files and messages are back.\n", args[0])
			return nil
		},
	}
	unrevert.Flags().BoolVar(&uforce, "force", false, "overwrite files changed since the revert")
	return []*cobra.Command{diff, revert, unrevert}
}

// sessionArg is the session named by args, or the project's latest.
func sessionArg(ctx context.Context, a *app.App, args []string) (string, error) {
	r := a.Records()
	if len(args) == 1 {
		if _, err := r.Session(ctx, args[0]); err != nil {
			return "", err
		}
		return args[0], nil
	}
	latest, ok, err := r.Latest(ctx)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", errors.New("this project has no sessions yet")
	}
	return latest, nil
}

// relTo is path relative to dir when it lies inside it.
func relTo(dir, path string) string {
	if r, err := filepath.Rel(dir, path); err == nil && filepath.IsLocal(r) {
		return r
	}
	return path
}
