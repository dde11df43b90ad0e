//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// landlockABI returns the kernel's Landlock ABI version, 0 when the kernel
// has none or it is disabled.
func landlockABI() int {
	v, _, errno := unix.RawSyscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// fsRights are the file-system rights the kernel's ABI knows, split into
// what reading needs and everything.
type fsRights struct {
	read, all uint64
}

func rightsFor(abi int) fsRights {
	r := fsRights{
		read: unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR,
		all: unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
			unix.LANDLOCK_ACCESS_FS_READ_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
			unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
			unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
			unix.LANDLOCK_ACCESS_FS_MAKE_SYM,
	}
	if abi >= 2 {
		r.all |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		r.all |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	if abi >= 5 {
		// Device ioctls (terminals) stay allowed everywhere; typing into
		// the terminal is refused by the seccomp filter instead.
		r.all |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
		r.read |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	return r
}

// fileRights keeps the rights that apply to a file rather than a directory.
func fileRights(r uint64) uint64 {
	return r & (unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV)
}

// deviceFiles may be read and written in every mode.
func deviceFiles() []string {
	return []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/random", "/dev/urandom"}
}

// restrictFS confines the calling thread, which must be locked to its
// goroutine and about to exec, to the policy's file-system access, and sets
// no_new_privs on it. It returns the ABI version applied.
func restrictFS(p Policy) (int, error) {
	abi := landlockABI()
	if abi == 0 {
		return 0, errors.New("landlock is not available in this kernel")
	}
	rights := rightsFor(abi)
	attr := unix.LandlockRulesetAttr{Handled_access_fs: rights.all}
	if abi >= 6 {
		// Commands may not signal processes outside the sandbox, codeloop
		// itself included.
		attr.Scoped = unix.LANDLOCK_SCOPE_SIGNAL
	}
	r, _, errno := unix.RawSyscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return 0, fmt.Errorf("creating the landlock ruleset: %w", errno)
	}
	fd := int(r)
	defer unix.Close(fd)

	if err := addRule(fd, "/", rights.read); err != nil {
		return 0, err
	}
	for _, d := range p.writable() {
		if err := addRule(fd, d, rights.all); err != nil && !errors.Is(err, os.ErrNotExist) {
			return 0, err
		}
	}
	for _, f := range deviceFiles() {
		if err := addRule(fd, f, rights.all); err != nil && !errors.Is(err, os.ErrNotExist) {
			return 0, err
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return 0, fmt.Errorf("setting no_new_privs: %w", err)
	}
	if _, _, errno := unix.RawSyscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(fd), 0, 0); errno != 0 {
		return 0, fmt.Errorf("applying the landlock ruleset: %w", errno)
	}
	return abi, nil
}

// addRule lets the sandbox use path with rights, restricted to those that
// apply to what path is.
func addRule(rulesetFD int, path string, rights uint64) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		rights = fileRights(rights)
	}
	attr := unix.LandlockPathBeneathAttr{Allowed_access: rights, Parent_fd: int32(fd)}
	_, _, errno := unix.RawSyscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(rulesetFD), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("allowing %s in the landlock ruleset: %w", path, errno)
	}
	return nil
}
