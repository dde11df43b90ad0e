package tool

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRemoveSessionTemp checks that a deleted session's temporary
// directory goes with what is in it, that a directory never made is not an
// error, and that nothing else is removed: not a symbolic link in the
// directory's place (nor what it points to), not a path an id that is not
// a plain name would reach.
func TestRemoveSessionTemp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		id      string
		setup   func(t *testing.T, base, dir string) // dir is SessionTempDir(base, id)
		wantErr bool
		gone    bool     // dir must not exist afterwards
		kept    []string // paths under base that must still exist
	}{
		{name: "a directory with files", id: "ses_a", gone: true, setup: func(t *testing.T, _, dir string) {
			mkdir(t, filepath.Join(dir, "build", "obj"))
			write(t, filepath.Join(dir, "build", "obj", "a.o"))
			write(t, filepath.Join(dir, "notes.txt"))
		}},
		{name: "never made", id: "ses_b", gone: true},
		{name: "a symbolic link in its place", id: "ses_c", kept: []string{"codeloop-ses_c", "elsewhere/keep.txt"},
			setup: func(t *testing.T, base, dir string) {
				mkdir(t, filepath.Join(base, "elsewhere"))
				write(t, filepath.Join(base, "elsewhere", "keep.txt"))
				if err := os.Symlink(filepath.Join(base, "elsewhere"), dir); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "an id climbing out", id: "../victim", wantErr: true, kept: []string{"victim/keep.txt"},
			setup: func(t *testing.T, base, _ string) {
				mkdir(t, filepath.Join(base, "victim"))
				write(t, filepath.Join(base, "victim", "keep.txt"))
			}},
		{name: "an empty id", id: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			base := filepath.Join(root, "tmp")
			mkdir(t, base)
			dir := SessionTempDir(base, tt.id)
			if tt.setup != nil {
				tt.setup(t, base, dir)
			}
			err := RemoveSessionTemp(base, tt.id)
			if (err != nil) != tt.wantErr {
				t.Fatalf("RemoveSessionTemp(%q) = %v, want an error: %v", tt.id, err, tt.wantErr)
			}
			if _, err := os.Lstat(dir); tt.gone && !os.IsNotExist(err) {
				t.Errorf("%s is still there (%v)", dir, err)
			}
			for _, p := range tt.kept {
				if _, err := os.Lstat(filepath.Join(base, p)); err != nil {
					t.Errorf("%s was removed: %v", p, err)
				}
			}
		})
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
}
