//go:build linux && (amd64 || arm64)

package snapshot

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// fstatat stats the NUL-terminated name in the directory open as dirfd,
// without following a final symbolic link and without copying the name.
func fstatat(dirfd int, cname []byte, st *unix.Stat_t) error {
	_, _, errno := unix.Syscall6(unix.SYS_NEWFSTATAT, uintptr(dirfd), uintptr(unsafe.Pointer(&cname[0])),
		uintptr(unsafe.Pointer(st)), unix.AT_SYMLINK_NOFOLLOW, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}
