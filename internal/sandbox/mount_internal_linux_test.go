//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// TestConfineMounts shapes a mount namespace both ways the helper can, all
// mounts at once and one by one, on a thread of the test's own, and checks
// from that thread what a confined command would see.
func TestConfineMounts(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("making a mount namespace for one thread needs root")
	}
	for _, perMount := range []bool{false, true} {
		t.Run(fmt.Sprintf("perMount=%v", perMount), func(t *testing.T) {
			root := t.TempDir()
			project, outside, temp := filepath.Join(root, "p"), filepath.Join(root, "o"), filepath.Join(root, "t")
			for _, d := range []string{filepath.Join(project, ".git", "hooks"), outside, temp} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for _, f := range []string{filepath.Join(project, ".git", "config"), filepath.Join(outside, "victim")} {
				if err := os.WriteFile(f, []byte("x\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			p := Policy{Mode: ModeWorkspaceWrite, Project: project, TempDir: temp}
			errc := make(chan error, 1)
			go func() {
				// Never unlocked: the thread, and its namespace, end with
				// the goroutine.
				runtime.LockOSThread()
				errc <- inNamespace(p, perMount, outside)
			}()
			if err := <-errc; err != nil {
				t.Fatal(err)
			}
			// The test's other threads saw none of it.
			if err := os.Chmod(filepath.Join(outside, "victim"), 0o600); err != nil {
				t.Fatalf("outside the namespace: %v", err)
			}
		})
	}
}

// inNamespace gives the calling thread a mount namespace of its own,
// confines it and tries what a command would.
func inNamespace(p Policy, perMount bool, outside string) error {
	if err := unix.Unshare(unix.CLONE_FS | unix.CLONE_NEWNS); err != nil {
		return err
	}
	if err := unix.Chdir(p.Project); err != nil {
		return err
	}
	if err := confineMounts(p, perMount); err != nil {
		return err
	}
	checks := []struct {
		what string
		err  error
		want error // nil: must succeed
	}{
		{"write the project", os.WriteFile(filepath.Join(p.Project, "new"), nil, 0o644), nil},
		{"write relative to the working directory", os.WriteFile("rel", nil, 0o644), nil},
		{"write the temp dir", os.WriteFile(filepath.Join(p.TempDir, "new"), nil, 0o644), nil},
		{"write /dev/null", os.WriteFile("/dev/null", []byte("x"), 0o644), nil},
		{"chmod outside", unix.Chmod(filepath.Join(outside, "victim"), 0o777), unix.EROFS},
		{"utimes outside", unix.UtimesNano(filepath.Join(outside, "victim"), []unix.Timespec{{Sec: 1}, {Sec: 1}}), unix.EROFS},
		{"write outside", os.WriteFile(filepath.Join(outside, "new"), nil, 0o644), unix.EROFS},
		{"write .git/config", os.WriteFile(filepath.Join(p.Project, ".git", "config"), nil, 0o644), unix.EROFS},
		{"rename .git", os.Rename(filepath.Join(p.Project, ".git"), filepath.Join(p.Project, "g")), unix.EBUSY},
		{"write in .git", os.WriteFile(filepath.Join(p.Project, ".git", "HEAD"), nil, 0o644), nil},
	}
	var errs []error
	for _, c := range checks {
		if c.want == nil && c.err != nil || c.want != nil && !errors.Is(c.err, c.want) {
			errs = append(errs, fmt.Errorf("%s: got %v, want %v", c.what, c.err, c.want))
		}
	}
	return errors.Join(errs...)
}

func TestMountInfoLine(t *testing.T) {
	tests := []struct {
		opts, point string
		flags       uintptr
		ro          bool
		wantPoint   string
	}{
		{"rw,relatime", `/home/me/my\040project`, unix.MS_RELATIME, false, "/home/me/my project"},
		{"ro,nosuid,nodev,noexec,noatime", `/a\134b`, unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC | unix.MS_NOATIME, true, `/a\b`},
		{"rw,nosymfollow", "/x", unix.MS_NOSYMFOLLOW | unix.MS_STRICTATIME, false, "/x"},
		{"rw,nodiratime,relatime", `/tail\04`, unix.MS_NODIRATIME | unix.MS_RELATIME, false, `/tail\04`},
	}
	for _, tt := range tests {
		m := mountInfo{opts: tt.opts, point: unescapeMount(tt.point)}
		flags, ro := m.flags()
		if flags != tt.flags || ro != tt.ro || m.point != tt.wantPoint {
			t.Errorf("%s %s: flags %#x ro %v point %q, want %#x %v %q", tt.opts, tt.point, flags, ro, m.point, tt.flags, tt.ro, tt.wantPoint)
		}
	}
}
