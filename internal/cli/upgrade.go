package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/codeloop/codeloop/internal/upgrade"
)

// newUpgradeCmd installs the newest release (or the one named) over the
// running executable. It never runs by itself.
func newUpgradeCmd(e *env) *cobra.Command {
	var check bool
	cmd := &cobra.Command{
		Use:   "upgrade [version]",
		Short: "Replace this codeloop with the newest release (or the version given)",
		Long: "Replace this codeloop with the newest release, or with the version given.\n\n" +
			"The archive for this platform is checked against the release's checksums.txt,\n" +
			"and the old executable is kept until the new one answers --version. A codeloop\n" +
			"installed by npm, Homebrew or go install is upgraded with that tool instead.\n" +
			"CODELOOP_RELEASE_URL points at another release location (a mirror).",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			exe, err := os.Executable()
			if err != nil {
				return fmt.Errorf("finding this executable: %w", err)
			}
			if real, err := filepath.EvalSymlinks(exe); err == nil {
				exe = real
			}
			o := upgrade.Options{
				Source:    upgrade.NewSource(e.getenv, "codeloop/"+Version),
				Exe:       exe,
				Current:   Version,
				GOOS:      runtime.GOOS,
				GOARCH:    runtime.GOARCH,
				CheckOnly: check,
				Getenv:    e.getenv,
				Progress:  func(s string) { fmt.Fprintln(e.stderr, s) },
			}
			if len(args) == 1 {
				o.Version = args[0]
			}
			res, err := upgrade.Run(cmd.Context(), o)
			if err != nil {
				return err
			}
			switch {
			case res.Installed:
				fmt.Fprintf(e.stdout, "codeloop upgraded from %s to %s (%s)\n", Version, res.Tag, exe)
			case check && res.Newer:
				fmt.Fprintf(e.stdout, "codeloop %s is available (this is %s); run codeloop upgrade\n", res.Tag, Version)
			default:
				fmt.Fprintf(e.stdout, "codeloop is up to date (%s; the newest release is %s)\n", Version, res.Tag)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&check, "check", false, "only say whether a newer release exists")
	return cmd
}
