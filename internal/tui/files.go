package tui

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// maxIndexedFiles bounds the files @ completion offers, so a huge tree
// costs a bounded walk.
const maxIndexedFiles = 50000

// indexFiles lists the files and directories under root, relative and
// slash-separated, leaving out what the .gitignore files on the way
// ignore and the .git directory. Directories end with a slash.
func indexFiles(root string) []string {
	var out []string
	var patterns []gitignore.Pattern
	matcher := gitignore.NewMatcher(nil)
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		if rel == "." {
			patterns = append(patterns, readIgnore(path, nil)...)
			matcher = gitignore.NewMatcher(patterns)
			return nil
		}
		parts := strings.Split(filepath.ToSlash(rel), "/")
		if d.IsDir() && d.Name() == ".git" {
			return fs.SkipDir
		}
		if matcher.Match(parts, d.IsDir()) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if len(out) >= maxIndexedFiles {
			return fs.SkipAll
		}
		if d.IsDir() {
			out = append(out, filepath.ToSlash(rel)+"/")
			if more := readIgnore(path, parts); len(more) > 0 {
				patterns = append(patterns, more...)
				matcher = gitignore.NewMatcher(patterns)
			}
			return nil
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	return out
}

// readIgnore reads the patterns of dir's .gitignore; domain is dir's path
// from the root.
func readIgnore(dir string, domain []string) []gitignore.Pattern {
	b, err := os.ReadFile(filepath.Join(dir, ".gitignore"))
	if err != nil {
		return nil
	}
	var ps []gitignore.Pattern
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimRight(l, "\r")
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(l, domain))
	}
	return ps
}

// fuzzyScore scores how well query matches s as a subsequence, ignoring
// case: higher is better, -1 when it does not match. Matches at the start
// of a path element, runs of consecutive letters and early matches score
// more; shorter candidates win ties.
func fuzzyScore(s, query string) int {
	if query == "" {
		return 0
	}
	ls, lq := strings.ToLower(s), strings.ToLower(query)
	score, qi, run, first := 0, 0, 0, -1
	for i := 0; i < len(ls) && qi < len(lq); i++ {
		if ls[i] != lq[qi] {
			run = 0
			continue
		}
		if first < 0 {
			first = i
		}
		score += 10
		if i == 0 || ls[i-1] == '/' || ls[i-1] == '_' || ls[i-1] == '-' || ls[i-1] == '.' || ls[i-1] == ' ' {
			score += 15
		}
		run++
		score += 5 * (run - 1)
		qi++
	}
	if qi < len(lq) {
		return -1
	}
	if strings.Contains(ls, lq) {
		score += 50
	}
	// Earlier matches are better.
	score -= min(first, 20)
	return score*100 - len(s)
}

// fuzzyFilter returns the candidates matching query, best first, at most
// limit.
func fuzzyFilter(cands []string, query string, limit int) []string {
	type scored struct {
		s     string
		score int
	}
	var hits []scored
	for _, c := range cands {
		if sc := fuzzyScore(c, query); sc >= 0 {
			hits = append(hits, scored{c, sc})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	out := make([]string, 0, min(limit, len(hits)))
	for _, h := range hits[:min(limit, len(hits))] {
		out = append(out, h.s)
	}
	return out
}
