package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/codeloop/codeloop/internal/id"
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
			a, err := e.openReadData(ctx)
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
			exp, err := readExport(name, data)
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
			info, err := a.Sessions.Import(ctx, exp, session.ImportOptions{ProjectID: a.ProjectID, Replace: replace})
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

// readExport decodes a session export, the JSON that codeloop export and
// opencode export print, and says what was expected when data is not one.
func readExport(name string, data []byte) (session.Export, error) {
	var exp session.Export
	notExport := func(why string) (session.Export, error) {
		return exp, fmt.Errorf("%s is not a codeloop or OpenCode session export (%s); expected the JSON that "+
			"\"codeloop export\" or \"opencode export\" prints: "+
			`{"info": {"id": "ses_…", …}, "messages": [{"info": {…}, "parts": […]}, …]}`, name, why)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil || top == nil {
		if !json.Valid(data) {
			return notExport("it is not JSON")
		}
		return notExport("it is not a JSON object")
	}
	for _, key := range []string{"info", "messages"} {
		if _, ok := top[key]; !ok {
			return notExport(fmt.Sprintf("it has no %q field", key))
		}
	}
	if err := json.Unmarshal(data, &exp); err != nil {
		return notExport(err.Error())
	}
	if err := id.Check(id.Session, exp.Info.ID); err != nil {
		return notExport(fmt.Sprintf("info.id %q is not a session id", exp.Info.ID))
	}
	return exp, nil
}
