package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/codeloop/codeloop/internal/lsp"
)

// newDebugLSPCmd is `debug lsp [FILE]`: the configured language servers
// and whether they are installed, or a file's diagnostics.
func newDebugLSPCmd(e *env) *cobra.Command {
	var wait time.Duration
	cmd := &cobra.Command{
		Use:   "lsp [FILE]",
		Short: "List the language servers, or print the diagnostics of a file",
		Long: "Without a file, list the language servers the config enables and whether each is installed.\n" +
			"With a file, start its servers, print every diagnostic they report for it, then the servers' state.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			cwd, err := os.Getwd()
			if err != nil {
				return err
			}
			loaded, err := e.loadConfig(ctx, cwd)
			if err != nil {
				return err
			}
			servers, err := lsp.Resolve(loaded.Config.LSP)
			if err != nil {
				return err
			}
			m := lsp.New(lsp.Options{Servers: servers, Worktree: loaded.Worktree, Version: Version, Log: e.log})
			defer m.Close()
			w := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
			if len(args) == 0 {
				if len(servers) == 0 {
					fmt.Fprintln(e.stdout, `language servers are off ("lsp": false)`)
					return nil
				}
				for _, a := range m.Available() {
					where := "not installed (" + a.Command[0] + " is not on PATH)"
					if a.Path != "" {
						where = "installed: " + a.Path
					}
					fmt.Fprintf(w, "%s\t%s\t%s\n", a.Server, strings.Join(a.Extensions, " "), where)
				}
				return w.Flush()
			}
			path := args[0]
			if !filepath.IsAbs(path) {
				path = filepath.Join(cwd, path)
			}
			out, err := m.Check(ctx, filepath.Clean(path), wait)
			if err != nil {
				return err
			}
			fmt.Fprintln(e.stdout, out)
			for _, s := range m.Status() {
				state := string(s.State)
				if s.Pid != 0 {
					state += fmt.Sprintf(" (pid %d)", s.Pid)
				}
				if s.Reason != "" {
					state += ": " + s.Reason
				}
				fmt.Fprintf(w, "%s\t%s\troot %s\n", s.Server, state, s.Root)
			}
			return w.Flush()
		},
	}
	cmd.Flags().DurationVar(&wait, "wait", 30*time.Second, "how long to wait for the servers to start and report")
	return cmd
}
