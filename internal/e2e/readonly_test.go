//go:build unix

package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadOnlyDataDir lists and exports sessions from a data directory
// codeloop cannot write: commands that only read must work. As root, whom
// file modes do not stop, the commands run as the unprivileged user nobody.
func TestReadOnlyDataDir(t *testing.T) {
	p := newProject(t, "step\ntext Hello from a read-only store.\nfinish stop input=10 output=5\n", nil)
	if _, stderr, code := p.run("run", "say hello"); code != 0 {
		t.Fatalf("run: %d %s", code, stderr)
	}
	id := p.sessions()[0]
	data := filepath.Join(p.home, ".local/share", "codeloop")
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		cred = &syscall.Credential{Uid: 65534, Gid: 65534}
		// nobody must reach the binary, the project and the home.
		for _, d := range []string{filepath.Dir(binary), filepath.Dir(filepath.Dir(p.dir)), filepath.Dir(p.dir), p.dir, p.home} {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := filepath.WalkDir(p.home, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return os.Chmod(path, map[bool]os.FileMode{true: 0o555, false: 0o444}[d.IsDir()])
		}); err != nil {
			t.Fatal(err)
		}
		if err := filepath.WalkDir(p.dir, func(path string, d os.DirEntry, err error) error {
			if err == nil {
				err = os.Chmod(path, map[bool]os.FileMode{true: 0o755, false: 0o644}[d.IsDir()])
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
	} else {
		if err := filepath.WalkDir(data, func(path string, d os.DirEntry, err error) error {
			if err == nil {
				err = os.Chmod(path, map[bool]os.FileMode{true: 0o555, false: 0o444}[d.IsDir()])
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			filepath.WalkDir(data, func(path string, d os.DirEntry, err error) error {
				if err == nil {
					os.Chmod(path, 0o755)
				}
				return nil
			})
		})
	}
	for _, args := range [][]string{{"session", "list"}, {"export", id}} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, binary, args...)
		cmd.Dir, cmd.Env = p.dir, p.env()
		if cred != nil {
			// git refuses a repository another user owns unless told.
			cmd.Env = append(cmd.Env, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=safe.directory", "GIT_CONFIG_VALUE_0=*")
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		cancel()
		if err != nil {
			t.Fatalf("codeloop %v in a read-only data directory: %v\n%s", args, err, errb.String())
		}
		if !strings.Contains(out.String(), id) && !strings.Contains(out.String(), "Hello from a read-only store.") {
			t.Errorf("codeloop %v printed no session:\n%s", args, out.String())
		}
	}
}
