//go:build unix

package permission

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/codeloop/codeloop/internal/shellscan"
)

func TestExternalDirs(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	wt := filepath.Join(base, "repo")
	dir := filepath.Join(wt, "sub")
	outside := filepath.Join(base, "outside")
	home := filepath.Join(base, "home")
	for _, d := range []string{dir, outside, home, filepath.Join(wt, "other")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	must(t, os.Symlink(outside, filepath.Join(dir, "link")))
	must(t, os.Symlink(filepath.Join(outside, "file"), filepath.Join(dir, "filelink")))
	must(t, os.Symlink(wt, filepath.Join(base, "repolink")))
	must(t, os.Symlink(filepath.Join(dir, "loop2"), filepath.Join(dir, "loop1")))
	must(t, os.Symlink(filepath.Join(dir, "loop1"), filepath.Join(dir, "loop2")))

	tests := []struct {
		name     string
		paths    []string
		dir, wt  string
		want     []string
		wantNone bool
	}{
		{name: "inside the session directory", paths: []string{"a.txt", "./x/y", dir + "/z"}, wantNone: true},
		{name: "inside the worktree", paths: []string{"../other/f", wt + "/README.md", ".."}, wantNone: true},
		{name: "outside, by absolute path", paths: []string{outside + "/f.txt"}, want: []string{outside + "/*"}},
		{name: "an existing directory asks for itself", paths: []string{outside}, want: []string{outside + "/*"}},
		{name: "dot-dot out of the worktree", paths: []string{"../../outside/f"}, want: []string{outside + "/*"}},
		{name: "dot-dot beyond the root stays at the root", paths: []string{"/../../etc/x"}, want: []string{"/etc/*"}},
		{name: "symlinked directory", paths: []string{"link/secret"}, want: []string{outside + "/*"}},
		{name: "symlinked file", paths: []string{"filelink"}, want: []string{outside + "/*"}},
		{name: "dot-dot after a symlink goes from its target", paths: []string{"link/../x"}, want: []string{base + "/*"}},
		{name: "missing components after a symlink", paths: []string{"link/new/deeper/f"}, want: []string{outside + "/new/deeper/*"}},
		{name: "home", paths: []string{"~/.ssh/id_rsa", "~"}, want: []string{home + "/.ssh/*", home + "/*"}},
		{name: "once each", paths: []string{outside + "/a", outside + "/b", "/etc/a"}, want: []string{outside + "/*", "/etc/*"}},
		{name: "project reached through a symlink", paths: []string{"a"}, dir: base + "/repolink/sub", wt: base + "/repolink", wantNone: true},
		{name: "root worktree is ignored", paths: []string{"/etc/passwd", "x"}, wt: "/", want: []string{"/etc/*"}},
		{name: "empty paths", paths: []string{""}, wantNone: true},
		{name: "a symlink loop ends", paths: []string{"loop1/x"}, wantNone: true},
	}
	for _, tt := range tests {
		d, w := dir, wt
		if tt.dir != "" {
			d = tt.dir
		}
		if tt.wt != "" {
			w = tt.wt
		}
		got := ExternalDirs(tt.paths, d, w)
		if tt.wantNone && len(got) != 0 || !tt.wantNone && !slices.Equal(got, tt.want) {
			t.Errorf("%s: ExternalDirs(%q) = %q, want %q", tt.name, tt.paths, got, tt.want)
		}
	}

	req, ok := ExternalRequest([]string{outside + "/x"}, dir, wt)
	if !ok || req.Permission != "external_directory" || !slices.Equal(req.Patterns, []string{outside + "/*"}) || !slices.Equal(req.Always, req.Patterns) {
		t.Errorf("ExternalRequest = %+v, %v", req, ok)
	}
	if _, ok := ExternalRequest([]string{"x"}, dir, wt); ok {
		t.Error("ExternalRequest for an inside path")
	}
	// The paths of a shell command feed the check.
	a := shellscan.AnalyzeBash("cat ../../outside/notes.txt > out.txt; cd $DIR")
	if got := ExternalDirs(a.StaticPaths(), dir, wt); !slices.Equal(got, []string{outside + "/*"}) {
		t.Errorf("bash paths: %q from %+v", got, a.Paths)
	}
	// A path known only at run time is checked by the directory its
	// literal part names.
	for _, cmd := range []string{"cat ../../outside/$x", `cat "../../outside/"$x`, "cat ../../outside/*.txt", "rm ../../outside/a$b/c"} {
		a := shellscan.AnalyzeBash(cmd)
		if got := ExternalDirs(a.StaticPaths(), dir, wt); !slices.Equal(got, []string{outside + "/*"}) {
			t.Errorf("%s: %q from %+v", cmd, got, a.Paths)
		}
	}
	if got := ExternalDirs(shellscan.AnalyzeBash("cat $f ./$g").StaticPaths(), dir, wt); len(got) != 0 {
		t.Errorf("paths that name no directory outside asked for %q", got)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
