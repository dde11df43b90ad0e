package app

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/paths"
	"github.com/codeloop/codeloop/internal/store"
)

// TestOpenData checks that OpenData finds the same project, worktree and
// database as Open, and that only Open records the project.
func TestOpenData(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	home, repo := filepath.Join(root, "home"), filepath.Join(root, "repo")
	sub := filepath.Join(repo, "pkg", "deep")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"init", "-q"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "root"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	env := map[string]string{"HOME": home, "CODELOOP_DISABLE_MODELS_FETCH": "1", "OLLAMA_HOST": "127.0.0.1:1",
		"CODELOOP_DB": "other.db"}
	getenv := func(k string) string { return env[k] }
	dirs, err := paths.Resolve(getenv)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	opts := Options{Dir: sub, Dirs: dirs, Getenv: getenv, NoMCP: true}

	d, err := OpenData(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Store.GetProject(ctx, d.ProjectID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("OpenData recorded the project: %v", err)
	}
	got := [...]string{d.Dir, d.Worktree, d.ProjectID, d.VCS, d.Store.Path()}
	d.Close()

	a, err := Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	want := [...]string{a.Dir, a.Worktree, a.ProjectID, "git", filepath.Join(dirs.Data, "other.db")}
	if got != want {
		t.Errorf("OpenData found %q, Open %q", got, want)
	}
	if p, err := a.Store.GetProject(ctx, a.ProjectID); err != nil || p.Worktree != repo || p.VCS != "git" {
		t.Errorf("Open recorded %+v, %v", p, err)
	}
	if len(a.ProjectID) != 40 || a.Worktree != repo {
		t.Errorf("project %q in %q, want the root commit's hash in %s", a.ProjectID, a.Worktree, repo)
	}
}

// TestProjectIDCached checks that a repository's id is the first of its
// root commits, is kept in .git once known, is read from there without git
// (a PATH without git still finds it), and that a damaged cache is
// replaced by the real id.
func TestProjectIDCached(t *testing.T) {
	repo := t.TempDir()
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "HOME="+repo, "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	ctx := context.Background()
	cache := filepath.Join(repo, ".git", "codeloop-project")
	if id := projectID(ctx, repo, true); len(id) != 40 {
		t.Fatalf("no commit yet: id %q, want the path's hash", id)
	}
	if _, err := os.Stat(cache); !os.IsNotExist(err) {
		t.Fatalf("a repository without commits cached its provisional id: %v", err)
	}
	git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "root")
	root := git("rev-list", "--max-parents=0", "--all")
	if id := projectID(ctx, repo, true); id != root {
		t.Fatalf("id %q, want the root commit %q", id, root)
	}
	if b, err := os.ReadFile(cache); err != nil || strings.TrimSpace(string(b)) != root {
		t.Fatalf("cache holds %q (%v), want %q", b, err, root)
	}
	t.Setenv("PATH", t.TempDir()) // no git: only the cache can answer
	if id := projectID(ctx, repo, true); id != root {
		t.Errorf("with the cache and no git: id %q, want %q", id, root)
	}
	if err := os.WriteFile(cache, []byte("not-a-commit\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if id := projectID(ctx, repo, true); id == "not-a-commit" {
		t.Errorf("a damaged cache was trusted")
	}
}
