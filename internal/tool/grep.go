package tool

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/codeloop/codeloop/internal/permission"
)

// Grep limits.
const (
	GrepLimit        = 100  // matches shown
	GrepMaxLineChars = 2000 // characters shown of a matching line
)

type grepParams struct {
	Pattern string `json:"pattern" jsonschema:"Regular expression"`
	Path    string `json:"path,omitempty" jsonschema:"Directory to search (default: the working directory)"`
	Include string `json:"include,omitempty" jsonschema:"Glob of the file names to search"`
}

func newGrep(env Env) Tool {
	return Must(Def[grepParams]{
		Traits:      Traits{Kind: KindSearch, Contained: true},
		Touches:     func(p grepParams, dir string) []Touch { return touch(dir, p.Path, false) },
		Summary:     func(p grepParams, _ string) string { return p.Pattern },
		ID:          "grep",
		Description: describe("grep"),
		Truncate:    env.Truncator,
		Run: func(ctx context.Context, call *Call, p grepParams) (*Result, error) {
			return runGrep(ctx, env, call, p)
		},
	})
}

// grepMatch is one matching line.
type grepMatch struct {
	path string
	line int
	text string // without its line ending
}

// grepQuery is a search to run, by ripgrep or by the Go search.
type grepQuery struct {
	pattern string
	re      *regexp.Regexp
	root    string
	file    bool         // root is a single file
	include *globPattern // nil: every file
	// secrets are the secret files of the project rooted at project, whose
	// contents are not searched; nil: none.
	secrets *SecretFiles
	project string
}

// isSecret reports whether the file at path is secret. The files a search
// finds are not symbolic links (neither search follows them), so their
// names alone decide; a link named as the search's root is resolved.
func (q *grepQuery) isSecret(path string) bool {
	if q.secrets == nil {
		return false
	}
	if q.file {
		_, ok := q.secrets.Match(q.project, path)
		return ok
	}
	_, ok := q.secrets.match(q.project, path)
	return ok
}

func newGrepQuery(call *Call, p grepParams) (*grepQuery, error) {
	if p.Pattern == "" {
		return nil, fmt.Errorf("pattern is required")
	}
	re, err := regexp.Compile(p.Pattern)
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression %q: %w", p.Pattern, err)
	}
	root, info, err := searchRoot(call, p.Path)
	if err != nil {
		return nil, err
	}
	q := &grepQuery{pattern: p.Pattern, re: re, root: root, file: !info.IsDir()}
	if p.Include != "" {
		g, err := compileGlob(p.Include)
		if err != nil {
			return nil, err
		}
		q.include = &g
	}
	return q, nil
}

// includes reports whether a file found under the root passes the include
// pattern.
func (q *grepQuery) includes(path string) bool {
	if q.include == nil || q.file {
		return true
	}
	rel, err := filepath.Rel(q.root, path)
	if err != nil {
		return false
	}
	return q.include.match(filepath.ToSlash(rel))
}

// ripgrepPath is the rg binary to use, or "" for the Go search.
func ripgrepPath(env Env) string {
	switch env.Ripgrep {
	case "-":
		return ""
	case "":
		p, err := exec.LookPath("rg")
		if err != nil {
			return ""
		}
		return p
	}
	return env.Ripgrep
}

// search runs q with ripgrep when rg is given, else with the Go search, and
// returns every match in a fixed order: files newest first (then by path),
// lines in order, and the number of secret files whose contents were not
// searched. The count does not depend on what the secret files hold.
func (q *grepQuery) search(ctx context.Context, rg string) ([]grepMatch, int, error) {
	if q.file && q.isSecret(q.root) {
		return nil, 1, nil
	}
	var (
		ms      []grepMatch
		skipped int
		err     error
	)
	if rg != "" {
		ms, skipped, err = q.ripgrep(ctx, rg)
	} else {
		ms, skipped, err = q.goSearch(ctx)
	}
	if err != nil {
		return nil, 0, err
	}
	sortMatches(ms)
	return ms, skipped, nil
}

func sortMatches(ms []grepMatch) {
	mtimes := map[string]int64{}
	for _, m := range ms {
		if _, ok := mtimes[m.path]; ok {
			continue
		}
		if st, err := os.Stat(m.path); err == nil {
			mtimes[m.path] = st.ModTime().UnixNano()
		} else {
			mtimes[m.path] = 0
		}
	}
	slices.SortFunc(ms, func(a, b grepMatch) int {
		if a.path != b.path {
			ta, tb := mtimes[a.path], mtimes[b.path]
			if ta != tb {
				if ta > tb {
					return -1
				}
				return 1
			}
			return strings.Compare(a.path, b.path)
		}
		return a.line - b.line
	})
}

func runGrep(ctx context.Context, env Env, call *Call, p grepParams) (*Result, error) {
	q, err := newGrepQuery(call, p)
	if err != nil {
		return nil, err
	}
	if err := askExternal(ctx, call, target{path: q.root, isDir: !q.file}); err != nil {
		return nil, err
	}
	if err := call.Ask(ctx, permission.Request{
		Permission: "grep",
		Patterns:   []string{p.Pattern},
		Always:     []string{"*"},
		Metadata:   map[string]any{"pattern": p.Pattern, "path": q.root, "include": p.Include},
	}); err != nil {
		return nil, err
	}
	q.secrets, q.project = env.secrets(), projectRoot(call)
	ms, skipped, err := q.search(ctx, ripgrepPath(env))
	if err != nil {
		return nil, err
	}
	out, shown := formatMatches(ms)
	out += skippedNote(skipped)
	return &Result{
		Title:  p.Pattern,
		Output: out,
		// "limited", not "truncated": a hundred long lines can still exceed
		// the output limits, so the usual truncation must still apply.
		Metadata: map[string]any{"matches": len(ms), "limited": shown < len(ms), "secretSkipped": skipped},
	}, nil
}

// skippedNote tells the model that n secret files were not searched, or
// is "" when n is 0.
func skippedNote(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return "\n\n(1 secret file was skipped: its content is not searched. Reading it with the read tool asks the user.)"
	}
	return fmt.Sprintf("\n\n(%d secret files were skipped: their contents are not searched. Reading one with the read tool asks the user.)", n)
}

// formatMatches renders matches grouped by file, at most GrepLimit of them,
// and reports how many it showed.
func formatMatches(ms []grepMatch) (string, int) {
	if len(ms) == 0 {
		return "No files found", 0
	}
	shown := min(len(ms), GrepLimit)
	var b strings.Builder
	if shown < len(ms) {
		fmt.Fprintf(&b, "Found %d matches (showing the first %d)\n", len(ms), shown)
	} else {
		fmt.Fprintf(&b, "Found %d matches\n", len(ms))
	}
	prev := ""
	for _, m := range ms[:shown] {
		if m.path != prev {
			if prev != "" {
				b.WriteByte('\n')
			}
			b.WriteString(m.path + ":\n")
			prev = m.path
		}
		fmt.Fprintf(&b, "  Line %d: %s\n", m.line, cutMatchLine(m.text))
	}
	if shown < len(ms) {
		fmt.Fprintf(&b, "\n(Results are truncated: %d more matches not shown. Use a more specific path, pattern or include.)\n", len(ms)-shown)
	}
	return strings.TrimSuffix(b.String(), "\n"), shown
}

func cutMatchLine(s string) string {
	if utf8.RuneCountInString(s) <= GrepMaxLineChars {
		return s
	}
	n := 0
	for i := range s {
		if n == GrepMaxLineChars {
			return s[:i] + "..."
		}
		n++
	}
	return s
}
