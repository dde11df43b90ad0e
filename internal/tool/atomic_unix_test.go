//go:build unix

package tool

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestWriteAtomicKeepsFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) string // returns the path written
		check func(t *testing.T, dir, path string)
	}{
		{
			name: "mode kept",
			setup: func(t *testing.T, dir string) string {
				p := filepath.Join(dir, "run.sh")
				writeFiles(t, dir, map[string]string{"run.sh": "old"})
				if err := os.Chmod(p, 0o751); err != nil {
					t.Fatal(err)
				}
				return p
			},
			check: func(t *testing.T, dir, path string) {
				info, _ := os.Stat(path)
				if info.Mode().Perm() != 0o751 {
					t.Errorf("mode %v, want 0751", info.Mode().Perm())
				}
			},
		},
		{
			name: "symbolic link stays a link",
			setup: func(t *testing.T, dir string) string {
				writeFiles(t, dir, map[string]string{"real/target.txt": "old"})
				link := filepath.Join(dir, "link.txt")
				if err := os.Symlink(filepath.Join("real", "target.txt"), link); err != nil {
					t.Fatal(err)
				}
				return link
			},
			check: func(t *testing.T, dir, path string) {
				info, err := os.Lstat(path)
				if err != nil || info.Mode()&os.ModeSymlink == 0 {
					t.Fatalf("the link was replaced by a file: %v %v", info, err)
				}
				if got := readFile(t, filepath.Join(dir, "real", "target.txt")); got != "new content" {
					t.Errorf("target holds %q", got)
				}
			},
		},
		{
			name: "set-id bits kept",
			setup: func(t *testing.T, dir string) string {
				p := filepath.Join(dir, "tool")
				writeFiles(t, dir, map[string]string{"tool": "old"})
				if err := os.Chmod(p, 0o755|os.ModeSetuid|os.ModeSetgid); err != nil {
					t.Fatal(err)
				}
				if info, _ := os.Stat(p); info.Mode()&(os.ModeSetuid|os.ModeSetgid) == 0 {
					t.Skip("the file system does not keep set-id bits")
				}
				return p
			},
			check: func(t *testing.T, dir, path string) {
				info, _ := os.Stat(path)
				if want := 0o755 | os.ModeSetuid | os.ModeSetgid; info.Mode()&^os.ModeType != want {
					t.Errorf("mode %v, want %v", info.Mode(), want)
				}
			},
		},
		{
			name: "dangling symbolic link creates its target",
			setup: func(t *testing.T, dir string) string {
				link := filepath.Join(dir, "link.txt")
				if err := os.Symlink(filepath.Join("real", "later.txt"), link); err != nil {
					t.Fatal(err)
				}
				return link
			},
			check: func(t *testing.T, dir, path string) {
				info, err := os.Lstat(path)
				if err != nil || info.Mode()&os.ModeSymlink == 0 {
					t.Fatalf("the link was replaced by a file: %v %v", info, err)
				}
				if got := readFile(t, filepath.Join(dir, "real", "later.txt")); got != "new content" {
					t.Errorf("target holds %q", got)
				}
			},
		},
		{
			name: "chain of symbolic links",
			setup: func(t *testing.T, dir string) string {
				writeFiles(t, dir, map[string]string{"real/target.txt": "old"})
				if err := os.Symlink(filepath.Join(dir, "real", "target.txt"), filepath.Join(dir, "real", "second")); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(filepath.Join("real", "second"), filepath.Join(dir, "first")); err != nil {
					t.Fatal(err)
				}
				return filepath.Join(dir, "first")
			},
			check: func(t *testing.T, dir, path string) {
				for _, l := range []string{path, filepath.Join(dir, "real", "second")} {
					if info, err := os.Lstat(l); err != nil || info.Mode()&os.ModeSymlink == 0 {
						t.Errorf("%s is no longer a link: %v %v", l, info, err)
					}
				}
				if got := readFile(t, filepath.Join(dir, "real", "target.txt")); got != "new content" {
					t.Errorf("target holds %q", got)
				}
			},
		},
		{
			name: "new file in a new directory",
			setup: func(t *testing.T, dir string) string {
				return filepath.Join(dir, "a", "b", "new.txt")
			},
			check: func(t *testing.T, dir, path string) {
				info, _ := os.Stat(path)
				if info.Mode().Perm() != 0o644 {
					t.Errorf("mode %v, want 0644", info.Mode().Perm())
				}
			},
		},
		{
			name: "owner and set-user-id bit kept",
			setup: func(t *testing.T, dir string) string {
				if os.Geteuid() != 0 {
					t.Skip("changing a file's owner needs root")
				}
				writeFiles(t, dir, map[string]string{"owned.txt": "old"})
				p := filepath.Join(dir, "owned.txt")
				if err := os.Chown(p, 4321, 4322); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(p, 0o750|os.ModeSetuid); err != nil {
					t.Fatal(err)
				}
				return p
			},
			check: func(t *testing.T, dir, path string) {
				info, _ := os.Stat(path)
				st := info.Sys().(*syscall.Stat_t)
				if st.Uid != 4321 || st.Gid != 4322 {
					t.Errorf("owner %d:%d, want 4321:4322", st.Uid, st.Gid)
				}
				if want := 0o750 | os.ModeSetuid; info.Mode()&^os.ModeType != want {
					t.Errorf("mode %v, want %v: the change of owner cleared the set-user-id bit", info.Mode(), want)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := tt.setup(t, dir)
			if err := writeFile(path, "new content", nil); err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, path); got != "new content" {
				t.Fatalf("content %q", got)
			}
			tt.check(t, dir, path)
			leftovers(t, dir)
		})
	}
}

// leftovers fails when a staged temporary file remains under dir.
func leftovers(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".codeloop-") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
}

// TestWriteAtomicReplacesInode checks that the content is renamed into
// place rather than written over the old file: a reader holding the old
// file sees it whole.
func TestWriteAtomicReplacesInode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"f.txt": strings.Repeat("old\n", 1000)})
	path := filepath.Join(dir, "f.txt")
	held, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	for _, tool := range []struct {
		id    string
		input map[string]any
	}{
		{"write", map[string]any{"filePath": path, "content": "new\n"}},
		{"edit", map[string]any{"filePath": path, "oldString": "new", "newString": "newer"}},
	} {
		if _, err := run(t, testEnv(t), tool.id, dir, tool.input); err != nil {
			t.Fatalf("%s: %v", tool.id, err)
		}
	}
	old := make([]byte, 8000)
	n, _ := held.Read(old)
	if n != 4000 || string(old[:4]) != "old\n" {
		t.Fatalf("the file open before the write changed under its reader: %d bytes, %q", n, old[:4])
	}
	if got := readFile(t, path); got != "newer\n" {
		t.Fatalf("content %q", got)
	}
	leftovers(t, dir)
}

// TestWriteAtomicFileTooLarge writes a 300 KB file over an existing one in
// a child process whose file-size limit is 100 KB, as on a full disk: the
// write fails and the old content stays whole.
func TestWriteAtomicFileTooLarge(t *testing.T) {
	t.Parallel()
	if path := os.Getenv("CODELOOP_TEST_FSIZE_WRITE"); path != "" {
		signal.Ignore(syscall.SIGXFSZ)
		lim := syscall.Rlimit{Cur: 100 << 10, Max: 100 << 10}
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		if err := writeFile(path, strings.Repeat("new line of text\n", 300<<10/17), nil); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	dir := t.TempDir()
	old := strings.Repeat("old line of text\n", 300<<10/17)
	writeFiles(t, dir, map[string]string{"big.txt": old})
	path := filepath.Join(dir, "big.txt")
	cmd := exec.Command(os.Args[0], "-test.run=^TestWriteAtomicFileTooLarge$")
	cmd.Env = append(os.Environ(), "CODELOOP_TEST_FSIZE_WRITE="+path)
	out, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 2 {
		t.Fatalf("want the write to fail with exit 2, got %v (%d): %s", err, code, out)
	}
	if !strings.Contains(string(out), "file too large") {
		t.Errorf("the error does not say why: %s", out)
	}
	if got := readFile(t, path); got != old {
		t.Fatalf("the old file was torn: %d of %d bytes", len(got), len(old))
	}
	leftovers(t, dir)
}
