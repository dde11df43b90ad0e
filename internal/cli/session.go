package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/codeloop/codeloop/internal/app"
)

// openData opens the config, the store and the project id of the working
// directory, for commands that only read and write stored sessions and
// approvals: no provider, model catalog, MCP server or engine is started.
func (e *env) openData(ctx context.Context) (*app.Data, error) {
	return e.openDataMode(ctx, false)
}

// openReadData is openData for commands that change nothing: the store is
// opened read-only, so they work in a read-only data directory.
func (e *env) openReadData(ctx context.Context) (*app.Data, error) {
	return e.openDataMode(ctx, true)
}

func (e *env) openDataMode(ctx context.Context, readOnly bool) (*app.Data, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	return app.OpenData(ctx, app.Options{Dir: cwd, Dirs: e.dirs, Getenv: e.getenv, Log: e.log, Version: Version, ReadOnly: readOnly})
}

// openListing checks a listing command's --format and opens the project's
// data.
func (e *env) openListing(ctx context.Context, format string) (*app.Data, error) {
	if format != "table" && format != "json" {
		return nil, &exitCodeError{code: exitUsage, err: fmt.Errorf("--format %q: want table or json", format)}
	}
	return e.openReadData(ctx)
}

func newSessionCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "session", Short: "List, delete, diff and revert sessions"}
	var format string
	var limit int
	list := &cobra.Command{
		Use:   "list",
		Short: "List this project's sessions, the one used last first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a, err := e.openListing(cmd.Context(), format)
			if err != nil {
				return err
			}
			defer a.Close()
			infos, err := a.Records().RootSessions(cmd.Context(), limit)
			if err != nil {
				return err
			}
			if format == "json" {
				if infos == nil {
					infos = []app.SessionInfo{}
				}
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(infos)
			}
			w := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(w, "ID\tTITLE\tUPDATED")
			for _, s := range infos {
				fmt.Fprintf(w, "%s\t%s\t%s\n", s.ID, s.Title, time.UnixMilli(s.Time.Updated).Format("2006-01-02 15:04"))
			}
			return w.Flush()
		},
	}
	list.Flags().StringVar(&format, "format", "table", "output format: table or json")
	list.Flags().IntVarP(&limit, "max-count", "n", 0, "list at most this many sessions")

	var yes bool
	del := &cobra.Command{
		Use:   "delete <id>",
		Short: "Delete a session with its messages and child sessions",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := e.openData(cmd.Context())
			if err != nil {
				return err
			}
			defer a.Close()
			s, err := a.Records().Session(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if !yes {
				f, ok := e.stdin.(*os.File)
				if !ok || !isTerminal(f) {
					return &exitCodeError{code: exitUsage, err: errors.New("not a terminal: pass --yes to delete without asking")}
				}
				fmt.Fprintf(e.stdout, "Delete session %s %q? [y/N] ", s.ID, s.Title)
				line, _ := bufio.NewReader(e.stdin).ReadString('\n')
				if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
					fmt.Fprintln(e.stdout, "Not deleted.")
					return nil
				}
			}
			if err := a.Records().DeleteSession(cmd.Context(), s.ID); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "Deleted session %s\n", s.ID)
			return nil
		},
	}
	del.Flags().BoolVarP(&yes, "yes", "y", false, "delete without asking")
	cmd.AddCommand(list, del, newSessionPruneCmd(e))
	cmd.AddCommand(sessionRevertCmds(e)...)
	return cmd
}
