package tool

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"runtime"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"
)

// goSearch runs q without ripgrep: the same files (see walkFiles), searched
// in parallel, each line matched on its own.
func (q *grepQuery) goSearch(ctx context.Context) ([]grepMatch, error) {
	// A whole-file pass rules out most files before the line-by-line pass.
	quick, err := regexp.Compile("(?m)" + q.pattern)
	if err != nil {
		quick = nil
	}
	if q.file {
		return q.searchFile(q.root, quick, true)
	}
	g, ctx := errgroup.WithContext(ctx)
	paths := make(chan string, 256)
	g.Go(func() error {
		defer close(paths)
		return walkFiles(ctx, q.root, walkOptions{hidden: true}, func(path string) error {
			if !q.includes(path) {
				return nil
			}
			select {
			case paths <- path:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	})
	var (
		mu  sync.Mutex
		all []grepMatch
	)
	for range max(1, runtime.GOMAXPROCS(0)) {
		g.Go(func() error {
			for path := range paths {
				ms, err := q.searchFile(path, quick, false)
				if err != nil || len(ms) == 0 {
					continue
				}
				mu.Lock()
				all = append(all, ms...)
				mu.Unlock()
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return all, nil
}

// searchFile returns the matching lines of one file. Files with a NUL byte
// are binary and skipped, as ripgrep skips them; an explicitly named file
// is searched all the same up to its first NUL.
func (q *grepQuery) searchFile(path string, quick *regexp.Regexp, explicit bool) ([]grepMatch, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		if !explicit {
			return nil, nil
		}
		data = data[:i]
	}
	if quick != nil && !quick.Match(data) {
		return nil, nil
	}
	var ms []grepMatch
	for n, rest := 1, data; len(rest) > 0; n++ {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		if q.re.Match(line) {
			ms = append(ms, grepMatch{path: path, line: n, text: strings.TrimSuffix(string(line), "\r")})
		}
	}
	return ms, nil
}
