package app

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// FileChange is a file git sees changed in the work tree: its path
// relative to the project, "added", "modified" or "deleted", and the
// lines added and removed.
type FileChange struct {
	Path           string
	Status         string
	Added, Removed int
}

// git runs git in the project's worktree and returns its output.
func (a *App) git(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", a.Worktree, "-c", "core.quotepath=off"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// Branch returns the branch checked out, also before the first commit,
// and the remote's default branch when known; empty outside a git
// repository or on a detached HEAD.
func (a *App) Branch(ctx context.Context) (branch, defaultBranch string) {
	out, err := a.git(ctx, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil {
		return "", ""
	}
	branch = strings.TrimSpace(string(out))
	if ref, err := a.git(ctx, "symbolic-ref", "--short", "refs/remotes/origin/HEAD"); err == nil {
		defaultBranch = strings.TrimPrefix(strings.TrimSpace(string(ref)), "origin/")
	}
	return branch, defaultBranch
}

// ChangedFiles lists the files git sees changed against HEAD, untracked
// ones as added; none outside a git repository.
func (a *App) ChangedFiles(ctx context.Context) []FileChange {
	st, err := a.git(ctx, "status", "--porcelain=v1", "-z", "--untracked-files=all")
	if err != nil {
		return nil
	}
	counts := map[string][2]int{}
	if num, err := a.git(ctx, "diff", "--numstat", "-z", "HEAD"); err == nil {
		for _, rec := range strings.Split(string(num), "\x00") {
			f := strings.SplitN(rec, "\t", 3)
			if len(f) == 3 && f[2] != "" {
				added, _ := strconv.Atoi(f[0])
				removed, _ := strconv.Atoi(f[1])
				counts[f[2]] = [2]int{added, removed}
			}
		}
	}
	var out []FileChange
	recs := strings.Split(string(st), "\x00")
	for i := 0; i < len(recs); i++ {
		rec := recs[i]
		if len(rec) < 4 {
			continue
		}
		code, path := rec[:2], rec[3:]
		if code[0] == 'R' || code[0] == 'C' {
			i++ // the source path follows
		}
		fc := FileChange{Path: path, Status: "modified", Added: counts[path][0], Removed: counts[path][1]}
		switch {
		case code == "??" || code[0] == 'A':
			fc.Status = "added"
			if code == "??" {
				fc.Added = countLines(filepath.Join(a.Worktree, path))
			}
		case code[0] == 'D' || code[1] == 'D':
			fc.Status = "deleted"
		}
		out = append(out, fc)
	}
	return out
}

// countLines counts the lines of a small regular file, 0 for others.
func countLines(path string) int {
	st, err := os.Lstat(path)
	if err != nil || !st.Mode().IsRegular() || st.Size() > 1<<20 {
		return 0
	}
	data, err := os.ReadFile(path)
	if err != nil || len(data) == 0 {
		return 0
	}
	n := bytes.Count(data, []byte("\n"))
	if data[len(data)-1] != '\n' {
		n++
	}
	return n
}
