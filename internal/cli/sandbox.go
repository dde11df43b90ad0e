package cli

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/codeloop/codeloop/internal/sandbox"
)

// newDebugSandboxCmd reports what the sandbox can enforce on this machine,
// by running its helper once.
func newDebugSandboxCmd(e *env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "sandbox",
		Short: "Show what the shell-command sandbox can enforce on this machine",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			exe, err := os.Executable()
			if err != nil {
				return err
			}
			st := sandbox.New(exe).Status(cmd.Context())
			if asJSON {
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(st)
			}
			fmt.Fprintln(e.stdout, "sandbox "+st.String())
			if !st.Available {
				return &exitCodeError{code: exitError}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the status as JSON")
	return cmd
}
