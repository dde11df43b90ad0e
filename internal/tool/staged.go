package tool

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/codeloop/codeloop/internal/proc"
)

// stagedPattern is the name pattern of the temporary files stageFile
// creates: the target's name, hidden, then the writing process's id.
func stagedPattern(target string) string {
	return "." + filepath.Base(target) + ".codeloop-" + strconv.Itoa(os.Getpid()) + "-*.tmp"
}

// stagedName matches the names of staged files: with the writer's process
// id (group 1), or in the older form without it.
var stagedName = regexp.MustCompile(`^\..+\.codeloop-(?:([0-9]+)-)?[0-9]+\.tmp$`)

// StagedMaxAge is how old a staged file of the older form, which names no
// process, must be before SweepStaged removes it: a write moves its
// staged file into place moments after creating it.
const StagedMaxAge = time.Hour

// sweepSkipped are directories SweepStaged does not enter: version
// control, dependencies and caches, where codeloop's tools rarely write
// and whose size would make the sweep slow.
var sweepSkipped = map[string]bool{".git": true, "node_modules": true, ".venv": true, "venv": true,
	"__pycache__": true, "target": true, ".cache": true, ".next": true, ".nuxt": true, ".gradle": true,
	".tox": true, ".mypy_cache": true, ".pytest_cache": true, ".ruff_cache": true, ".terraform": true}

// SweepStaged removes the staged temporary files that writes of killed
// codeloop processes left under root (".<name>.codeloop-<pid>-<n>.tmp"):
// those whose process no longer runs, and those of the older form without
// a process id once older than StagedMaxAge. A file a live process is
// writing is left alone. A root that is / or the home directory is not
// swept. It returns the paths removed; it stops when ctx ends. Run it at
// start, on a goroutine the caller owns.
func SweepStaged(ctx context.Context, root string) []string {
	root = filepath.Clean(root)
	if home, err := os.UserHomeDir(); root == "/" || err == nil && root == filepath.Clean(home) {
		return nil
	}
	var removed []string
	now := time.Now()
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return filepath.SkipAll
		}
		if err != nil {
			return nil // an unreadable directory: skip it
		}
		if d.IsDir() {
			if path != root && sweepSkipped[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		m := stagedName.FindStringSubmatch(d.Name())
		if m == nil {
			return nil
		}
		if m[1] != "" {
			pid, err := strconv.Atoi(m[1])
			if err != nil || proc.Alive(pid) {
				return nil
			}
		} else if info, err := d.Info(); err != nil || now.Sub(info.ModTime()) < StagedMaxAge {
			return nil
		}
		if os.Remove(path) == nil {
			removed = append(removed, path)
		}
		return nil
	})
	return removed
}
