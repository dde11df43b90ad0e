package tool

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"runtime"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"
)

// goSearch runs q without ripgrep: the same files (see walkFiles), searched
// in parallel, each line matched on its own, but the secret files, which
// it counts.
func (q *grepQuery) goSearch(ctx context.Context) ([]grepMatch, int, error) {
	// A whole-file pass rules out most files before the line-by-line pass.
	quick, err := regexp.Compile("(?m)" + q.pattern)
	if err != nil {
		quick = nil
	}
	if q.file {
		data, err := readRegular(q.root)
		if err != nil {
			return nil, 0, err
		}
		if i := bytes.IndexByte(data, 0); i >= 0 {
			data = data[:i] // a named file is searched up to its first NUL
		}
		return q.searchData(q.root, data, quick), 0, nil
	}
	g, ctx := errgroup.WithContext(ctx)
	paths := make(chan string, 256)
	skipped := 0 // written by the walk only, read after g.Wait
	g.Go(func() error {
		defer close(paths)
		return walkFiles(ctx, q.root, walkOptions{hidden: true}, func(path string) error {
			if !q.includes(path) {
				return nil
			}
			if q.isSecret(path) {
				skipped++
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
			var buf []byte
			for path := range paths {
				var ms []grepMatch
				var err error
				ms, buf, err = q.searchFileBuf(path, quick, buf)
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
		return nil, 0, err
	}
	return all, skipped, nil
}

// searchFileBuf returns the matching lines of one file, reading it into
// buf (grown as needed and returned for reuse). Files with a NUL byte are
// binary and skipped, as ripgrep skips them.
func (q *grepQuery) searchFileBuf(path string, quick *regexp.Regexp, buf []byte) ([]grepMatch, []byte, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, buf, err
	}
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			f.Close()
			return nil, buf, err
		}
	}
	f.Close()
	if bytes.IndexByte(buf, 0) >= 0 {
		return nil, buf, nil
	}
	return q.searchData(path, buf, quick), buf, nil
}

// searchData returns the lines of data that match, each matched on its
// own; quick, when set, rules out data without any match first.
func (q *grepQuery) searchData(path string, data []byte, quick *regexp.Regexp) []grepMatch {
	if quick != nil && !quick.Match(data) {
		return nil
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
	return ms
}
