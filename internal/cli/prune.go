package cli

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/codeloop/codeloop/internal/app"
)

// newSessionPruneCmd deletes the sessions not used for a while.
func newSessionPruneCmd(e *env) *cobra.Command {
	var olderThan string
	var all, dryRun bool
	cmd := &cobra.Command{
		Use:   "prune --older-than 30d",
		Short: "Delete the sessions not used for a while, with their messages and child sessions",
		Long: "Deletes this project's sessions (every project's with --all) whose last change is older than\n" +
			"--older-than: a number of hours (12h), days (30d) or weeks (4w). --dry-run lists them only.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if olderThan == "" {
				return &exitCodeError{code: exitUsage, err: errors.New("--older-than is required: give an age such as 30d")}
			}
			age, err := app.ParseAge(olderThan)
			if err != nil {
				return &exitCodeError{code: exitUsage, err: fmt.Errorf("--older-than: %w", err)}
			}
			a, err := e.openData(cmd.Context())
			if err != nil {
				return err
			}
			defer a.Close()
			before := time.Now().Add(-age)
			if dryRun {
				ids, err := a.Records().OldSessions(cmd.Context(), before, all)
				if err != nil {
					return err
				}
				for _, id := range ids {
					fmt.Fprintf(e.stdout, "would delete %s\n", id)
				}
				fmt.Fprintf(e.stdout, "%d sessions older than %s; run without --dry-run to delete them\n", len(ids), olderThan)
				return nil
			}
			n, err := a.Records().DeleteOldSessions(cmd.Context(), before, all)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "Deleted %d sessions older than %s\n", n, olderThan)
			return nil
		},
	}
	cmd.Flags().StringVar(&olderThan, "older-than", "", "delete sessions unchanged for this long: 12h, 30d, 4w (required)")
	cmd.Flags().BoolVar(&all, "all", false, "every project's sessions, not only this project's")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "list the sessions that would be deleted")
	return cmd
}
