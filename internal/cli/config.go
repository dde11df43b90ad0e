package cli

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/codeloop/codeloop/internal/app"
	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/llm"
)

// newDebugConfigCmd prints the merged config and where each top-level key
// came from.
func newDebugConfigCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "config",
		Short: "Print the resolved config and the file each top-level key came from",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cwd, err := os.Getwd()
			if err != nil {
				return err
			}
			loaded, tr, err := app.LoadConfig(cmd.Context(), app.Options{Dir: cwd, Dirs: e.dirs, Getenv: e.getenv, Log: e.log})
			if err != nil {
				return err
			}
			out, err := maskedJSON(loaded.Config)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "%s\n\n", out)
			w := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(w, "key\tsource")
			for _, key := range configKeys() {
				if src, ok := loaded.Sources[key]; ok {
					fmt.Fprintf(w, "%s\t%s\n", key, src)
				}
			}
			if err := w.Flush(); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "\nworktree: %s (%s)\n", loaded.Worktree, tr.Verdict.State)
			fmt.Fprintf(e.stdout, "proxy: %s\n", llm.DescribeProxy(e.getenv))
			if tr.Held() {
				fmt.Fprintf(e.stdout, "held back until the project is trusted (codeloop trust):\n")
				for _, it := range tr.Items {
					fmt.Fprintf(e.stdout, "  %s\n", maskLine(tr.Line(it)))
				}
			}
			if len(loaded.Dirs) > 0 {
				fmt.Fprintf(e.stdout, "config directories:\n")
				for _, d := range loaded.Dirs {
					fmt.Fprintf(e.stdout, "  %s\n", d)
				}
			}
			return nil
		},
	}
}

// configKeys lists the top-level config keys in the order the type declares
// them.
func configKeys() []string {
	t := reflect.TypeFor[config.Config]()
	keys := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	return keys
}
