package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/codeloop/codeloop/internal/session"
	"github.com/codeloop/codeloop/internal/store"
)

func newExportCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "export [sessionID]",
		Short: "Print a session as JSON (the latest session when no id is given)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			a, err := e.openApp(ctx)
			if err != nil {
				return err
			}
			defer a.Close()
			id := ""
			if len(args) == 1 {
				id = args[0]
			} else {
				list, err := a.Sessions.List(ctx, store.SessionFilter{ProjectID: a.ProjectID, RootsOnly: true, Limit: 1})
				if err != nil {
					return err
				}
				if len(list) == 0 {
					return errors.New("there is no session to export in this project")
				}
				id = list[0].ID
			}
			exp, err := a.Sessions.Export(ctx, id)
			if errors.Is(err, store.ErrNotFound) {
				return fmt.Errorf("session %s does not exist", id)
			}
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
	return &cobra.Command{
		Use:   "import <file>",
		Short: "Import a session exported by codeloop or OpenCode into this project",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := os.ReadFile(args[0])
			if err != nil {
				return err
			}
			var exp session.Export
			if err := json.Unmarshal(data, &exp); err != nil {
				return fmt.Errorf("%s is not a session export: %w", args[0], err)
			}
			ctx := cmd.Context()
			a, err := e.openApp(ctx)
			if err != nil {
				return err
			}
			defer a.Close()
			info, err := a.Sessions.Import(ctx, exp, a.ProjectID)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "Imported session %s (%d messages): %s\n", info.ID, len(exp.Messages), info.Title)
			return nil
		},
	}
}
