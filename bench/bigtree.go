package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// bigTreeFiles is the size of the generated project of the big-tree
// scenarios.
const bigTreeFiles = 10000

// bigTree is the edit-and-test scenario in a project of 10,000 more
// files, run once untimed first so that the snapshot store already holds
// the project's first snapshot: the measured run is what every later run
// pays. With snapshots false the config turns them off, for comparison.
func bigTree(name string, snapshots bool) *scenario {
	about := fmt.Sprintf("edit-and-test in a project of %d more files, after a first run", bigTreeFiles)
	if !snapshots {
		about += ", snapshots off"
	}
	return &scenario{
		name: name, about: about, files: editAndTestFiles,
		script: editAndTestScript + editAndTestScript, // the untimed run, then the measured one
		args:   editAndTestArgs,
		setup: func(ctx context.Context, p *project) error {
			if !snapshots {
				cfgPath := filepath.Join(p.repo, "opencode.json")
				b, err := os.ReadFile(cfgPath)
				if err != nil {
					return err
				}
				b = bytes.Replace(b, []byte("{"), []byte("{\n  \"snapshot\": false,"), 1)
				if err := os.WriteFile(cfgPath, b, 0o644); err != nil {
					return err
				}
			}
			if err := writeTree(p.repo, bigTreeFiles); err != nil {
				return err
			}
			ex, err := p.run(ctx, editAndTestArgs...)
			if err != nil || ex.code != 0 {
				return fmt.Errorf("first run: exit status %d: %v %s", ex.code, err, ex.stderr)
			}
			// Undo the first run's fix, so the measured run makes it again.
			cmd := exec.CommandContext(ctx, "git", "checkout", "--", "greet.sh")
			cmd.Dir, cmd.Env = p.repo, p.env()
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("git checkout: %w\n%s", err, out)
			}
			return nil
		},
		check: editAndTestCheck,
	}
}

// writeTree writes n source-sized files under dir/gen in 50×7
// directories.
func writeTree(dir string, n int) error {
	for i := range n {
		d := filepath.Join(dir, "gen", fmt.Sprintf("pkg%02d", i%50), fmt.Sprintf("sub%02d", i%7))
		if i < 350 {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return err
			}
		}
		content := fmt.Appendf(nil, "package p%d\n\n// file %d\n%s", i, i, bytes.Repeat([]byte("// line of source text\n"), 80+i%100))
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%05d.go", i)), content, 0o644); err != nil {
			return err
		}
	}
	return nil
}
