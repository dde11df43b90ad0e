package cli

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/codeloop/codeloop/internal/store"
)

// newSessionPruneCmd deletes the sessions not used for a while.
func newSessionPruneCmd(e *env) *cobra.Command {
	var olderThan string
	var all, dryRun bool
	cmd := &cobra.Command{
		Use:   "prune --older-than 30d",
		Short: "Delete the sessions not used for a while, with their messages and child sessions",
		Long: "Deletes this project's sessions (every project's with --all) whose last change is older than\n" +
			"--older-than: a number of days (30d), hours (12h) or weeks (4w). --dry-run lists them only.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			age, err := parseAge(olderThan)
			if err != nil {
				return &exitCodeError{code: exitUsage, err: err}
			}
			a, err := e.openData(cmd.Context())
			if err != nil {
				return err
			}
			defer a.Close()
			project := a.ProjectID
			if all {
				project = ""
			}
			ids, err := a.Store.SessionsBefore(cmd.Context(), project, time.Now().Add(-age).UnixMilli())
			if err != nil {
				return err
			}
			deleted := 0
			for _, id := range ids {
				if dryRun {
					fmt.Fprintf(e.stdout, "would delete %s\n", id)
					continue
				}
				if err := a.Sessions.Delete(cmd.Context(), id); err != nil && !errors.Is(err, store.ErrNotFound) {
					return fmt.Errorf("deleting session %s (%d deleted before it): %w", id, deleted, err)
				}
				deleted++
			}
			if dryRun {
				fmt.Fprintf(e.stdout, "%d sessions older than %s; run without --dry-run to delete them\n", len(ids), olderThan)
				return nil
			}
			fmt.Fprintf(e.stdout, "Deleted %d sessions older than %s\n", deleted, olderThan)
			return nil
		},
	}
	cmd.Flags().StringVar(&olderThan, "older-than", "", "delete sessions unchanged for this long: 30d, 12h, 4w (required)")
	cmd.Flags().BoolVar(&all, "all", false, "every project's sessions, not only this project's")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "list the sessions that would be deleted")
	return cmd
}

// parseAge reads a number of hours (h), days (d) or weeks (w).
func parseAge(s string) (time.Duration, error) {
	if s == "" {
		return 0, errors.New("--older-than is required: give an age such as 30d")
	}
	units := map[string]time.Duration{"h": time.Hour, "d": 24 * time.Hour, "w": 7 * 24 * time.Hour}
	unit, ok := units[s[len(s)-1:]]
	n, err := strconv.Atoi(strings.TrimSpace(s[:len(s)-1]))
	if !ok || err != nil || n <= 0 {
		return 0, fmt.Errorf("--older-than %q: want a positive number of hours, days or weeks, such as 12h, 30d or 4w", s)
	}
	return time.Duration(n) * unit, nil
}
