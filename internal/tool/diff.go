package tool

import (
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// unifiedDiff is the unified diff of a file's change, line endings and
// byte order mark left out so a CRLF file does not show every line changed.
func unifiedDiff(path, before, after string) string {
	before = strings.ReplaceAll(strings.TrimPrefix(before, bom), "\r\n", "\n")
	after = strings.ReplaceAll(strings.TrimPrefix(after, bom), "\r\n", "\n")
	return udiff.Unified(path, path, before, after)
}

// diffStats counts the added and removed lines of a unified diff.
func diffStats(diff string) (additions, deletions int) {
	for _, line := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"):
		case strings.HasPrefix(line, "+"):
			additions++
		case strings.HasPrefix(line, "-"):
			deletions++
		}
	}
	return additions, deletions
}

// fileDiff is the metadata a file-changing tool reports for one file.
func fileDiff(path, diff string) map[string]any {
	add, del := diffStats(diff)
	return map[string]any{"file": path, "patch": diff, "additions": add, "deletions": del}
}
