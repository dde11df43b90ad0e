package shellscan

import (
	"os/user"
	"slices"
	"strings"
	"testing"
)

// TestStaticPathsKnownRoots checks that paths starting with a variable or
// a tilde form whose directory the shell knows are given to
// permission.ExternalDirs in a form it places, and that others are not
// changed.
func TestStaticPathsKnownRoots(t *testing.T) {
	tests := []struct {
		cmd  string
		want []string
	}{
		{`cp a $HOME/x`, []string{"a", "~/"}},
		{`cp a "$HOME"/x`, []string{"a", "~/"}},
		{`cp a "$HOME/.ssh/x"`, []string{"a", "~/.ssh/"}},
		{`cp a ${HOME}/x`, []string{"a", "~/"}},
		{`cp a $HOMEDIR/x`, []string{"a"}},
		{`cp a $PWD/../x`, []string{"a", "./../"}},
		{`cp a $OLDPWD/x`, []string{"a", "//"}},
		{`cp a ~+/../x`, []string{"a", "./../x"}},
		{`cp a ~-/x`, []string{"a", "/x"}},
		{`cp a ~/x`, []string{"a", "~/x"}},
		{`cp a ~no-such-user-here/x`, []string{"a", "~no-such-user-here/x"}},
		{`cp a $f`, []string{"a"}},
		{`cp a ./$f`, []string{"a", "./"}},
	}
	for _, tt := range tests {
		if got := AnalyzeBash(tt.cmd).StaticPaths(); !slices.Equal(got, tt.want) {
			t.Errorf("%s: static paths %q, want %q", tt.cmd, got, tt.want)
		}
	}
	u, err := user.Current()
	if err != nil || u.Username == "" || u.HomeDir == "" {
		t.Skip("no current user")
	}
	home := strings.TrimSuffix(u.HomeDir, "/")
	for cmd, want := range map[string]string{
		"touch ~" + u.Username + "/../x":  home + "/../x",
		"echo > ~" + u.Username:           home + "/",
		"cp a ~" + u.Username + "/d/$f/y": home + "/d/",
	} {
		if got := AnalyzeBash(cmd).StaticPaths(); !slices.Contains(got, want) {
			t.Errorf("%s: static paths %q, want %q among them", cmd, got, want)
		}
	}
}

// TestStaticPathsTargetDirectory checks that the target directory given
// to cp, mv and ln as an option is a written path, in each of its forms,
// and that options that only look alike are not.
func TestStaticPathsTargetDirectory(t *testing.T) {
	tests := []struct {
		cmd  string
		want []string
	}{
		{`cp --target-directory=/tmp a`, []string{"/tmp", "a"}},
		{`cp --target-dir=/tmp a`, []string{"/tmp", "a"}},
		{`mv --target-directory /tmp a`, []string{"/tmp", "a"}},
		{`cp -t/tmp a`, []string{"/tmp", "a"}},
		{`cp -rt/tmp a`, []string{"/tmp", "a"}},
		{`cp -rt /tmp a`, []string{"/tmp", "a"}},
		{`ln -st/tmp a`, []string{"/tmp", "a"}},
		{`cp a -t/tmp`, []string{"a", "/tmp"}},
		{`cp -Sbt x a`, []string{"x", "a"}}, // -S's value is "bt"; x is an operand
		{`cp --backup=t a b`, []string{"a", "b"}},
		{`rm -t/tmp`, nil},
		{`cp -- -t/tmp a`, []string{"-t/tmp", "a"}},
	}
	for _, tt := range tests {
		if got := AnalyzeBash(tt.cmd).StaticPaths(); !slices.Equal(got, tt.want) {
			t.Errorf("%s: static paths %q, want %q", tt.cmd, got, tt.want)
		}
	}
}
