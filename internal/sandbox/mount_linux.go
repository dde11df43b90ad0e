//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// stNoSymfollow is statfs's flag for a nosymfollow mount.
const stNoSymfollow = 0x2000

// confineMounts shapes the helper's own mount namespace: every mount
// read-only, the writable paths bound over themselves writable, the git
// directories bound over themselves (a mount point cannot be renamed or
// removed) and the other protected paths bound over themselves read-only.
// The namespace is first made private so that nothing done here reaches
// the rest of the system.
//
// perMount makes the mounts read-only one by one, as kernels without
// mount_setattr need, rather than all at once.
func confineMounts(p Policy, perMount bool) error {
	cwd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("sandbox: finding the working directory: %w", err)
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making the sandbox's mounts private: %w", err)
	}
	mounts, err := readMounts()
	if err != nil {
		return err
	}
	// The writable paths that exist, resolved, and the mount each lies on
	// before any of them is bound.
	var writable []string
	home := make(map[string]mountInfo)
	for _, w := range p.writable() {
		w, err := filepath.EvalSymlinks(w)
		if err != nil {
			continue
		}
		writable = append(writable, w)
		if id, err := mountID(w); err == nil {
			for _, m := range mounts {
				if m.id == id {
					home[w] = m
				}
			}
		}
	}
	if err := readOnlyAll(mounts, perMount); err != nil {
		return err
	}
	slices.Sort(writable)
	for _, w := range slices.Compact(writable) {
		if err := bindWritable(w, home[w], mounts); err != nil {
			return err
		}
	}
	for _, e := range p.protection() {
		if err := bindProtected(e); err != nil {
			return err
		}
	}
	for _, h := range p.hidden() {
		if err := hide(h); err != nil {
			return err
		}
	}
	// The working directory still names the mount beneath the binds.
	if err := unix.Chdir(cwd); err != nil {
		return fmt.Errorf("sandbox: entering %s: %w", cwd, err)
	}
	return nil
}

// readOnlyAll makes every mount of the namespace read-only, keeping the
// other flags: with one recursive mount_setattr, or, where the kernel (older
// than 5.12) or a container's seccomp filter refuses it or perMount asks,
// with a remount of each reachable mount.
func readOnlyAll(mounts []mountInfo, perMount bool) error {
	if !perMount {
		attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
		err := unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE, &attr)
		if err == nil {
			return nil
		}
		if !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.EPERM) {
			return fmt.Errorf("making the file system read-only in the sandbox: %w", err)
		}
	}
	for _, m := range mounts {
		if err := m.remount(); err != nil {
			return err
		}
	}
	return nil
}

// mountInfo is one line of /proc/self/mountinfo.
type mountInfo struct {
	id     uint64
	point  string
	opts   string // the mount's own options: rw,nosuid,relatime…
	fstype string
}

// readMounts returns the mounts of the calling thread's namespace.
func readMounts() ([]mountInfo, error) {
	b, err := os.ReadFile("/proc/thread-self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("listing the mounts: %w", err)
	}
	var out []mountInfo
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		sep := -1
		for i := 6; i < len(f); i++ {
			if f[i] == "-" {
				sep = i
				break
			}
		}
		if sep < 0 || sep+1 >= len(f) {
			return nil, fmt.Errorf("listing the mounts: unexpected line %q", line)
		}
		id, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("listing the mounts: unexpected line %q", line)
		}
		out = append(out, mountInfo{id: id, point: unescapeMount(f[4]), opts: f[5], fstype: f[sep+1]})
	}
	return out, nil
}

// unescapeMount decodes the octal escapes (\040 for a space) of a path in
// mountinfo.
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// mountID returns the id of the mount path lies on.
func mountID(path string) (uint64, error) {
	var st unix.Statx_t
	flags := unix.AT_SYMLINK_NOFOLLOW | unix.AT_NO_AUTOMOUNT | unix.AT_STATX_DONT_SYNC
	if err := unix.Statx(unix.AT_FDCWD, path, flags, unix.STATX_MNT_ID, &st); err != nil {
		return 0, err
	}
	if st.Mask&unix.STATX_MNT_ID == 0 {
		return 0, errors.New("the kernel does not report mount ids")
	}
	return st.Mnt_id, nil
}

// flags returns the mount flags a remount of m must keep: a user
// namespace may not change those locked when the namespace was made.
func (m mountInfo) flags() (flags uintptr, readOnly bool) {
	atime := false
	for o := range strings.SplitSeq(m.opts, ",") {
		switch o {
		case "ro":
			readOnly = true
		case "nosuid":
			flags |= unix.MS_NOSUID
		case "nodev":
			flags |= unix.MS_NODEV
		case "noexec":
			flags |= unix.MS_NOEXEC
		case "noatime":
			flags |= unix.MS_NOATIME
			atime = true
		case "relatime":
			flags |= unix.MS_RELATIME
			atime = true
		case "nodiratime":
			flags |= unix.MS_NODIRATIME
		case "nosymfollow":
			flags |= unix.MS_NOSYMFOLLOW
		}
	}
	if !atime {
		flags |= unix.MS_STRICTATIME
	}
	return flags, readOnly
}

// pseudoFS reports whether fstype is one of the kernel's own file systems,
// whose files a command cannot write through Landlock anyway: a failure to
// make one of them read-only is not fatal.
func pseudoFS(fstype string) bool {
	switch fstype {
	case "proc", "sysfs", "cgroup", "cgroup2", "devpts", "mqueue", "debugfs", "tracefs", "securityfs",
		"pstore", "bpf", "configfs", "fusectl", "binfmt_misc", "autofs", "efivarfs", "hugetlbfs",
		"rpc_pipefs", "nsfs", "selinuxfs":
		return true
	}
	return false
}

// remount makes m read-only, keeping its other flags. A mount hidden under
// another one, which no path reaches, is left alone.
func (m mountInfo) remount() error {
	if id, err := mountID(m.point); err != nil || id != m.id {
		return nil
	}
	flags, _ := m.flags()
	flags |= unix.MS_REMOUNT | unix.MS_BIND | unix.MS_RDONLY
	if err := unix.Mount("", m.point, "", flags, ""); err != nil {
		if pseudoFS(m.fstype) {
			return nil
		}
		return fmt.Errorf("making %s (%s) read-only in the sandbox: %w", m.point, m.fstype, err)
	}
	return nil
}

// bindWritable binds the writable path w over itself and makes the new
// mount writable, and the mounts beneath it that were: everything is
// read-only by now. home is the mount w lay on; a path on a read-only
// mount stays read-only.
func bindWritable(w string, home mountInfo, mounts []mountInfo) error {
	if err := unix.Mount(w, w, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("binding %s in the sandbox: %w", w, err)
	}
	if home.id == 0 {
		return fmt.Errorf("binding %s in the sandbox: the mount it lies on is unknown", w)
	}
	if flags, ro := home.flags(); !ro {
		if err := unix.Mount("", w, "", flags|unix.MS_REMOUNT|unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("making %s writable in the sandbox: %w", w, err)
		}
	}
	for _, m := range mounts {
		if _, ro := m.flags(); ro || !strings.HasPrefix(m.point, strings.TrimSuffix(w, "/")+"/") {
			continue
		}
		if id, err := mountID(m.point); err != nil || id == m.id {
			continue // not a copy under the new bind
		}
		flags, _ := m.flags()
		if err := unix.Mount("", m.point, "", flags|unix.MS_REMOUNT|unix.MS_BIND, ""); err != nil && !pseudoFS(m.fstype) {
			return fmt.Errorf("making %s writable in the sandbox: %w", m.point, err)
		}
	}
	return nil
}

// hide covers the directory dir with an empty, read-only file system. A
// path that is not a directory is left alone.
func hide(dir string) error {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil
	}
	flags := uintptr(unix.MS_RDONLY | unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC)
	if err := unix.Mount("tmpfs", dir, "tmpfs", flags, "size=4k,mode=0500"); err != nil {
		return fmt.Errorf("hiding %s: %w", dir, err)
	}
	return nil
}

// bindProtected binds e over itself, read-only when it should be. A path
// that does not exist is left to the Guard.
func bindProtected(e protected) error {
	if _, err := os.Stat(e.path); err != nil {
		return nil
	}
	if err := unix.Mount(e.path, e.path, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("protecting %s: %w", e.path, err)
	}
	if !e.readOnly {
		return nil
	}
	var st unix.Statfs_t
	if err := unix.Statfs(e.path, &st); err != nil {
		return fmt.Errorf("protecting %s: %w", e.path, err)
	}
	flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
	atime := false
	for _, f := range []struct{ st, ms uintptr }{
		{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC},
		{unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
		{stNoSymfollow, unix.MS_NOSYMFOLLOW},
	} {
		if uintptr(st.Flags)&f.st != 0 {
			flags |= f.ms
			atime = atime || f.ms == unix.MS_NOATIME || f.ms == unix.MS_RELATIME
		}
	}
	if !atime {
		flags |= unix.MS_STRICTATIME
	}
	if err := unix.Mount("", e.path, "", flags, ""); err != nil {
		return fmt.Errorf("making %s read-only: %w", e.path, err)
	}
	return nil
}
