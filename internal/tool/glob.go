package tool

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/codeloop/codeloop/internal/permission"
)

// GlobLimit is the most paths glob returns.
const GlobLimit = 100

type globParams struct {
	Pattern string `json:"pattern" jsonschema:"Glob pattern"`
	Path    string `json:"path,omitempty" jsonschema:"Directory to search; leave it out (never \"undefined\" or \"null\") for the working directory"`
}

func newGlob(env Env) Tool {
	return Must(Def[globParams]{
		Traits:      Traits{Kind: KindSearch, Contained: true},
		Touches:     func(p globParams, dir string) []Touch { return touch(dir, p.Path, false) },
		Summary:     func(p globParams, _ string) string { return p.Pattern },
		ID:          "glob",
		Description: describe("glob"),
		Truncate:    env.Truncator,
		Run: func(ctx context.Context, call *Call, p globParams) (*Result, error) {
			return runGlob(ctx, call, p)
		},
	})
}

// globPattern is a compiled glob: a pattern without a slash matches file
// names at any depth, one with a slash matches paths from the search root.
type globPattern struct {
	pattern  string
	basename bool
}

func compileGlob(pattern string) (globPattern, error) {
	pattern = strings.TrimPrefix(filepath.ToSlash(pattern), "./")
	if !doublestar.ValidatePattern(pattern) {
		return globPattern{}, fmt.Errorf("invalid glob pattern %q", pattern)
	}
	return globPattern{pattern: pattern, basename: !strings.Contains(pattern, "/")}, nil
}

// match reports whether the file at rel (slash-separated, relative to the
// search root) matches.
func (g globPattern) match(rel string) bool {
	if g.basename {
		rel = rel[strings.LastIndexByte(rel, '/')+1:]
	}
	return doublestar.MatchUnvalidated(g.pattern, rel)
}

// searchRoot resolves the directory a glob or grep call searches.
func searchRoot(call *Call, path string) (string, os.FileInfo, error) {
	root := absPath(baseDir(call), path)
	info, err := os.Stat(root)
	if err != nil {
		if os.IsNotExist(err) {
			return "", nil, fmt.Errorf("path not found: %s", root)
		}
		return "", nil, fmt.Errorf("searching %s: %w", root, err)
	}
	if err := checkRegular(root, info); err != nil {
		return "", nil, err
	}
	return root, info, nil
}

func runGlob(ctx context.Context, call *Call, p globParams) (*Result, error) {
	pattern, path := p.Pattern, p.Path
	if filepath.IsAbs(pattern) {
		// An absolute pattern: its fixed leading directories are the root.
		base, rest := doublestar.SplitPattern(filepath.ToSlash(pattern))
		pattern, path = rest, filepath.FromSlash(base)
	}
	g, err := compileGlob(pattern)
	if err != nil {
		return nil, err
	}
	root, info, err := searchRoot(call, path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("not a directory: %s", root)
	}
	if err := askExternal(ctx, call, target{path: root, isDir: true}); err != nil {
		return nil, err
	}
	if err := call.Ask(ctx, permission.Request{
		Permission: "glob",
		Patterns:   []string{p.Pattern},
		Always:     []string{"*"},
		Metadata:   map[string]any{"pattern": p.Pattern, "path": root},
	}); err != nil {
		return nil, err
	}
	type hit struct {
		path  string
		mtime int64
	}
	var hits []hit
	err = walkFiles(ctx, root, walkOptions{}, func(path string) error {
		rel, _ := filepath.Rel(root, path)
		if !g.match(filepath.ToSlash(rel)) {
			return nil
		}
		var mtime int64
		if st, err := os.Stat(path); err == nil {
			mtime = st.ModTime().UnixNano()
		}
		hits = append(hits, hit{path, mtime})
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(hits, func(a, b hit) int {
		if a.mtime != b.mtime {
			if a.mtime > b.mtime {
				return -1
			}
			return 1
		}
		return strings.Compare(a.path, b.path)
	})
	truncated := len(hits) > GlobLimit
	if truncated {
		hits = hits[:GlobLimit]
	}
	title := relPath(call, root)
	if len(hits) == 0 {
		return &Result{Title: title, Output: "No files found", Metadata: map[string]any{"count": 0, "truncated": false}}, nil
	}
	lines := make([]string, len(hits))
	for i, h := range hits {
		lines[i] = h.path
	}
	out := strings.Join(lines, "\n")
	if truncated {
		out += fmt.Sprintf("\n\n(Results are truncated: showing the first %d results, newest first. Use a more specific path or pattern.)", GlobLimit)
	}
	return &Result{Title: title, Output: out, Metadata: map[string]any{"count": len(hits), "truncated": truncated}}, nil
}
