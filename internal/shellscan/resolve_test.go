//go:build unix

package shellscan

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// linkWorld is a directory with a PATH of its own holding touch and rm
// (small scripts), and in the working directory the ways to reach them
// under other names.
type linkWorld struct {
	dir, bin, home string
}

func newLinkWorld(t *testing.T) linkWorld {
	t.Helper()
	root := t.TempDir()
	w := linkWorld{dir: filepath.Join(root, "work"), bin: filepath.Join(root, "bin"), home: filepath.Join(root, "home")}
	for _, d := range []string{w.dir, w.bin, w.home, filepath.Join(w.dir, "sub"), filepath.Join(w.dir, "tools")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path, text string) {
		if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, path string) {
		if err := os.Symlink(target, path); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(w.bin, "touch"), "#!/bin/sh\n# touch\n: > \"$1\"\n")
	write(filepath.Join(w.bin, "rm"), "#!/bin/sh\n# rm\n")
	write(filepath.Join(w.dir, "build.sh"), "#!/bin/sh\necho build\n")
	link(filepath.Join(w.bin, "touch"), filepath.Join(w.dir, "x"))
	link("x", filepath.Join(w.dir, "y"))                 // a chain
	link("../tools/t", filepath.Join(w.dir, "sub", "x")) // a relative link
	link(filepath.Join(w.bin, "touch"), filepath.Join(w.dir, "tools", "t"))
	link(filepath.Join(w.bin, "rm"), filepath.Join(w.home, "del"))
	data, err := os.ReadFile(filepath.Join(w.bin, "touch"))
	if err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(w.dir, "copy"), string(data))
	if err := os.Link(filepath.Join(w.bin, "rm"), filepath.Join(w.dir, "hard")); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w linkWorld) analyze(cmd string) Analysis {
	return Analyze(cmd, AnalyzeOptions{Dir: w.dir, Path: w.bin, Home: w.home})
}

// TestAnalyzeLinks checks that a program reached through a path that is a
// link to or a copy of a denied program is denied, in every form that
// reaches it, and that what cannot be resolved is not allowed.
func TestAnalyzeLinks(t *testing.T) {
	w := newLinkWorld(t)
	svc, rules := corpusService(t)
	tests := []struct {
		cmd  string
		want string // allow, deny, or unanalysable
	}{
		{"./x marker", "deny"},
		{"./y marker", "deny"},
		{`"./x" marker`, "deny"},
		{`./'x' marker`, "deny"},
		{".//x marker", "deny"},
		{"./sub/../x marker", "deny"},
		{w.dir + "/x marker", "deny"},
		{"sub/x marker", "deny"},
		{"./copy marker", "deny"},
		{"./hard -rf .", "deny"},
		{"~/del -rf .", "deny"},
		{"sudo ./x marker", "deny"},
		{"env FOO=1 ./x marker", "deny"},
		{"timeout 5 ./x marker", "deny"},
		{"nice -n 5 ./y marker", "deny"},
		{"bash -c './x marker'", "deny"},
		{"eval ./x marker", "deny"},
		{"echo $(./x marker)", "deny"},
		{"ls | xargs ./x", "deny"},
		{"find . -name keep -exec ./x {} \\;", "deny"},
		{"FOO=1 ./copy marker && echo done", "deny"},
		{"cd sub && ./x marker", "deny"},           // ./x and sub/x both lead to touch
		{"cd tools && ./x marker", "unanalysable"}, // tools/x does not exist
		{"cd \"$d\" && ./build.sh", "unanalysable"},
		{"find . -execdir ./build.sh \\;", "unanalysable"},
		{"strace -f -o /dev/null ./x marker", "deny"},
		{"setpriv --no-new-privs ./copy marker", "deny"},
		{"unshare -w /tmp ./build.sh", "unanalysable"}, // run from another directory
		{"bwrap --bind / / ./build.sh", "unanalysable"},
		{"proot -0 ./build.sh", "unanalysable"},
		{"setpriv --no-new-privs ./build.sh", "allow"},
		{"./missing", "unanalysable"},
		{"ln -s " + w.bin + "/touch z && ./z marker", "unanalysable"},
		{"cp " + w.bin + "/touch z; ./z marker", "unanalysable"},
		{"./build.sh --fast", "allow"},
		{"ls -la && git status --short && grep -rn x .", "allow"},
		{"sed -n 1p keep; awk '{print $1}' keep", "allow"},
	}
	for _, tt := range tests {
		a := w.analyze(tt.cmd)
		got, err := decideBash(t.Context(), svc, rules, a)
		if err == nil {
			got = "allow"
		}
		if a.Unanalysable {
			got = "unanalysable"
			if d, _ := decideBash(t.Context(), svc, rules, a); d != "deny" {
				t.Errorf("%q: unanalysable but %s", tt.cmd, d)
			}
		}
		if got != tt.want {
			t.Errorf("%q: %s (%v), want %s\naliases %q reason %s", tt.cmd, got, err, tt.want, a.Aliases, a.Reason)
		}
	}
	// Without a directory nothing is resolved: the text alone decides.
	if a := AnalyzeBash("./x marker"); len(a.Aliases) != 0 || a.Unanalysable {
		t.Errorf("AnalyzeBash resolved links: %+v", a)
	}
}

// TestAnalyzeLinksAliases checks the names an alias gives.
func TestAnalyzeLinksAliases(t *testing.T) {
	w := newLinkWorld(t)
	a := w.analyze("./y -a marker 2> /dev/null")
	var as []string
	for _, al := range a.Aliases {
		as = append(as, al.As)
	}
	if !slices.Equal(as, []string{"x -a marker 2> /dev/null", "touch -a marker 2> /dev/null"}) {
		t.Errorf("aliases of ./y = %q", as)
	}
}
