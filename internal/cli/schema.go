package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/codeloop/codeloop/internal/config"
)

// newSchemaCmd prints the JSON Schema of config files.
func newSchemaCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "schema",
		Short: "Print the JSON Schema of codeloop.json / opencode.json for editors",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out, err := config.SchemaJSON()
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(e.stdout, "%s\n", out)
			return err
		},
	}
}
