package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

func newDebugCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "debug",
		Short: "Show what codeloop resolved: paths, config, prompt",
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "paths",
		Short: "Print the directories codeloop uses",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintf(w, "data\t%s\n", e.dirs.Data)
			fmt.Fprintf(w, "config\t%s\n", e.dirs.Config)
			fmt.Fprintf(w, "cache\t%s\n", e.dirs.Cache)
			fmt.Fprintf(w, "state\t%s\n", e.dirs.State)
			fmt.Fprintf(w, "database\t%s\n", e.dirs.Database())
			fmt.Fprintf(w, "log\t%s\n", e.dirs.Log())
			fmt.Fprintf(w, "tool-output\t%s\n", e.dirs.ToolOutput())
			fmt.Fprintf(w, "snapshot\t%s\n", e.dirs.Snapshot())
			return w.Flush()
		},
	})
	cmd.AddCommand(newDebugConfigCmd(e))
	cmd.AddCommand(newDebugPromptCmd(e))
	cmd.AddCommand(newDebugSandboxCmd(e))
	cmd.AddCommand(newDebugSnapshotCmd(e))
	cmd.AddCommand(newDebugLSPCmd(e))
	cmd.AddCommand(newDebugStoreCmd(e))
	return cmd
}
