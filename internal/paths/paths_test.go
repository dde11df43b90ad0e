package paths

import (
	"path/filepath"
	"slices"
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
