package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/codeloop/codeloop/internal/app"
)

func newStatsCmd(e *env) *cobra.Command {
	var days int
	var project, format string
	var all bool
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Show sessions, tokens, cost and tool calls, by model, day and agent",
		Long: "Adds up the usage of this project's sessions (or another project's with --project, or every\n" +
			"project's with --all): sessions, messages, tokens (input, output, reasoning, cache read and\n" +
			"write, and the share of input tokens read from the prompt cache) and cost by model, by day and\n" +
			"by agent, and how often each tool was called.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "table" && format != "json" {
				return &exitCodeError{code: exitUsage, err: fmt.Errorf("--format %q: want table or json", format)}
			}
			if all && project != "" {
				return &exitCodeError{code: exitUsage, err: errors.New("--project and --all cannot be used together")}
			}
			if days < 0 {
				return &exitCodeError{code: exitUsage, err: fmt.Errorf("--days %d: want a positive number of days", days)}
			}
			dir := project
			if dir == "" {
				wd, err := os.Getwd()
				if err != nil {
					return err
				}
				dir = wd
			}
			a, err := app.OpenData(cmd.Context(), app.Options{Dir: dir, Dirs: e.dirs, Getenv: e.getenv, Log: e.log, Version: Version, ReadOnly: true})
			if err != nil {
				return err
			}
			defer a.Close()
			f := app.StatsFilter{ProjectID: a.ProjectID}
			if all {
				f.ProjectID = ""
			}
			if days > 0 {
				now := time.Now()
				start := time.Date(now.Year(), now.Month(), now.Day()-days+1, 0, 0, 0, 0, now.Location())
				f.Since = start.UnixMilli()
			}
			st, err := a.Records().Stats(cmd.Context(), f)
			if err != nil {
				return err
			}
			if format == "json" {
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(st)
			}
			return printStats(e.stdout, st)
		},
	}
	cmd.Flags().IntVar(&days, "days", 0, "only the last N days, today included (default: all time)")
	cmd.Flags().StringVar(&project, "project", "", "the project of this directory instead of the current one")
	cmd.Flags().BoolVar(&all, "all", false, "every project")
	cmd.Flags().StringVar(&format, "format", "table", "output format: table or json")
	return cmd
}

func printStats(out io.Writer, st app.Stats) error {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "sessions\t%d\n", st.Sessions)
	fmt.Fprintf(w, "messages\t%d\n", st.Messages)
	fmt.Fprintf(w, "cost\t$%.4f\n", st.Total.Cost)
	if err := w.Flush(); err != nil {
		return err
	}
	for _, g := range []struct {
		title string
		rows  []app.Usage
	}{{"MODEL", st.ByModel}, {"DAY", st.ByDay}, {"AGENT", st.ByAgent}} {
		if len(g.rows) == 0 {
			continue
		}
		fmt.Fprintln(out)
		w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
		fmt.Fprintf(w, "%s\tANSWERS\tINPUT\tOUTPUT\tREASONING\tCACHE READ\tCACHE WRITE\tREAD SHARE\tCOST\n", g.title)
		for _, u := range append(g.rows, withKey(st.Total, "total")) {
			fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%.1f%%\t$%.4f\n", u.Key, u.Messages, u.Input, u.Output, u.Reasoning,
				u.CacheRead, u.CacheWrite, 100*u.ReadShare(), u.Cost)
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	if len(st.Tools) > 0 {
		fmt.Fprintln(out)
		w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
		fmt.Fprintln(w, "TOOL\tCALLS")
		for _, t := range st.Tools {
			fmt.Fprintf(w, "%s\t%d\n", t.Tool, t.Calls)
		}
		return w.Flush()
	}
	return nil
}

func withKey(u app.Usage, key string) app.Usage {
	u.Key = key
	return u
}

// newDebugStoreCmd prints the database's size, what it holds and what
// VACUUM would reclaim.
func newDebugStoreCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "store",
		Short: "Print the database's size, row counts and reclaimable space",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a, err := e.openReadData(cmd.Context())
			if err != nil {
				return err
			}
			defer a.Close()
			sz, err := a.Records().Size(cmd.Context())
			if err != nil {
				return err
			}
			wal := int64(0)
			if fi, err := os.Stat(sz.Path + "-wal"); err == nil {
				wal = fi.Size()
			}
			w := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintf(w, "database\t%s\n", sz.Path)
			fmt.Fprintf(w, "size\t%s\n", byteSize(sz.FileBytes))
			fmt.Fprintf(w, "write-ahead log\t%s\n", byteSize(wal))
			fmt.Fprintf(w, "sessions\t%d\n", sz.Sessions)
			fmt.Fprintf(w, "messages\t%d (%s of JSON)\n", sz.Messages, byteSize(sz.MessageData))
			fmt.Fprintf(w, "parts\t%d (%s of JSON)\n", sz.Parts, byteSize(sz.PartData))
			fmt.Fprintf(w, "reclaimable\t%s of free pages (sqlite3 %s VACUUM)\n", byteSize(sz.FreeBytes), sz.Path)
			fmt.Fprintf(w, "old sessions\tcodeloop session prune --older-than 30d deletes the sessions not used for 30 days\n")
			return w.Flush()
		},
	}
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
