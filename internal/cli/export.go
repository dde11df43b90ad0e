package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/codeloop/codeloop/internal/app"
)

func newExportCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "export [sessionID]",
		Short: "Print a session as JSON (the latest session when no id is given)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			a, err := e.openReadData(ctx)
			if err != nil {
				return err
			}
			defer a.Close()
			id := ""
			if len(args) == 1 {
				id = args[0]
			} else {
				latest, ok, err := a.Records().Latest(ctx)
				if err != nil {
					return err
				}
				if !ok {
					return errors.New("there is no session to export in this project")
				}
				id = latest
			}
			exp, err := a.Records().Export(ctx, id)
			if err != nil {
				return err
			}
			enc := json.NewEncoder(e.stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(exp)
		},
	}
}

func newImportCmd(e *env) *cobra.Command {
	var replace bool
	cmd := &cobra.Command{
		Use:   "import <file|->",
		Short: "Import a session exported by codeloop or OpenCode into this project",
		Long: "Import a session exported by codeloop or OpenCode into this project (- reads standard input).\n" +
			"An import never deletes: when a session with the same id exists, the import is stored as a\n" +
			"new session with ids of its own, unless --replace is given.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			var data []byte
			var err error
			if name == "-" {
				name = "standard input"
				data, err = io.ReadAll(e.stdin)
			} else {
				data, err = os.ReadFile(name)
			}
			if err != nil {
				return err
			}
			exp, err := app.ParseExport(name, data)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			a, err := e.openData(ctx)
			if err != nil {
				return err
			}
			defer a.Close()
			if err := a.SaveProject(ctx); err != nil {
				return err
			}
			info, err := a.Records().Import(ctx, exp, replace)
			if err != nil {
				return err
			}
			if info.ID != exp.Info.ID {
				fmt.Fprintf(e.stderr, "Session %s already exists and was kept; the import is a new session (use --replace to overwrite it).\n", exp.Info.ID)
			}
			fmt.Fprintf(e.stdout, "Imported session %s (%d messages): %s\n", info.ID, len(exp.Messages), info.Title)
			return nil
		},
	}
	cmd.Flags().BoolVar(&replace, "replace", false, "replace a stored session with the same id")
	return cmd
}
