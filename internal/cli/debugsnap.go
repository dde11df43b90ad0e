package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/codeloop/codeloop/internal/snapshot"
)

// newDebugSnapshotCmd is `debug snapshot [verify|gc]`: the store's size and
// counts, a check of every stored entry, or a collection.
func newDebugSnapshotCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:       "snapshot [verify|gc]",
		Short:     "Show the snapshot store's size and counts; verify every entry; or collect what is past its limits",
		Args:      cobra.MatchAll(cobra.MaximumNArgs(1), cobra.OnlyValidArgs),
		ValidArgs: []string{"verify", "gc"},
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := snapshot.Open(snapshot.Options{Dir: e.dirs.Snapshot(), Home: e.dirs.Home, Log: e.log})
			if err != nil {
				return err
			}
			defer s.Close()
			if len(args) == 1 && args[0] == "gc" {
				c := s.Collect()
				fmt.Fprintf(e.stdout, "removed %d checkpoint(s) and %d object(s), %s\n", c.Checkpoints, c.Objects, humanBytes(c.Bytes))
			}
			st := s.Stats()
			fmt.Fprintf(e.stdout, "store\t%s\nsize\t%s of %s\ncheckpoints\t%d in %d session(s)\nobjects\t%d\n",
				st.Dir, humanBytes(st.Bytes), humanBytes(st.MaxBytes), st.Checkpoints, st.Sessions, st.Objects)
			if len(args) == 1 && args[0] == "verify" {
				problems, err := s.Verify(cmd.Context())
				if err != nil {
					return err
				}
				for _, p := range problems {
					fmt.Fprintf(e.stdout, "damaged\t%s %s: %s\n", p.Checkpoint, p.File, p.Err)
				}
				if len(problems) > 0 {
					return fmt.Errorf("%d damaged entries: reverts that need them will fail", len(problems))
				}
				fmt.Fprintln(e.stdout, "verify\tok: every entry reads back and matches its hash")
			}
			return nil
		},
	}
}

// humanBytes formats n bytes with a binary unit.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
