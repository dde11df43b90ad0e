package paths

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want Dirs
	}{
		{
			name: "defaults",
			env:  map[string]string{"HOME": "/h"},
			want: Dirs{Data: "/h/.local/share/codeloop", Config: "/h/.config/codeloop", Cache: "/h/.cache/codeloop", State: "/h/.local/state/codeloop", Home: "/h"},
		},
		{
			name: "xdg",
			env:  map[string]string{"HOME": "/h", "XDG_DATA_HOME": "/x/data", "XDG_CONFIG_HOME": "/x/cfg", "XDG_CACHE_HOME": "relative/ignored"},
			want: Dirs{Data: "/x/data/codeloop", Config: "/x/cfg/codeloop", Cache: "/h/.cache/codeloop", State: "/h/.local/state/codeloop", Home: "/h"},
		},
		{
			name: "own variables win",
			env:  map[string]string{"HOME": "/h", "XDG_DATA_HOME": "/x/data", "CODELOOP_DATA_DIR": "/d", "CODELOOP_STATE_DIR": "/s"},
			want: Dirs{Data: "/d", Config: "/h/.config/codeloop", Cache: "/h/.cache/codeloop", State: "/s", Home: "/h"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Resolve(func(k string) string { return tt.env[k] })
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("Resolve() = %+v\nwant %+v", got, tt.want)
			}
			if got.Database() != filepath.Join(tt.want.Data, "codeloop.db") {
				t.Fatalf("Database() = %s", got.Database())
			}
		})
	}
}

func TestDown(t *testing.T) {
	tests := []struct {
		start, stop string
		want        []string
	}{
		{"/a/b/c", "/a", []string{"/a", "/a/b", "/a/b/c"}},
		{"/a/b/c/", "/a/b", []string{"/a/b", "/a/b/c"}},
		{"/a/b", "/a/b", []string{"/a/b"}},
		{"/a/b", "", []string{"/a/b"}},
		{"/a/b", "/x", []string{"/a/b"}},
		{"/a/b/", "/a/", []string{"/a", "/a/b"}},
	}
	for _, tt := range tests {
		if got := Down(tt.start, tt.stop); !slices.Equal(got, tt.want) {
			t.Errorf("Down(%q, %q) = %q, want %q", tt.start, tt.stop, got, tt.want)
		}
	}
}

// TestEnsureReportsOnce makes the directories under a home that cannot
// hold them (a file, so that the test also holds for root): the error
// names the place once, not once per directory, and says what to do.
func TestEnsureReportsOnce(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	if err := os.WriteFile(home, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := Resolve(func(k string) string { return map[string]string{"HOME": home}[k] })
	if err != nil {
		t.Fatal(err)
	}
	err = d.Ensure()
	if err == nil {
		t.Fatal("Ensure succeeded under a file")
	}
	msg := err.Error()
	if strings.Count(msg, "cannot create directories in ") != 1 || !strings.Contains(msg, filepath.Dir(home)) || strings.Count(msg, "\n") != 0 || !strings.Contains(msg, "XDG_DATA_HOME") {
		t.Fatalf("error %q, want one line naming %s once and what to do", msg, home)
	}
}
