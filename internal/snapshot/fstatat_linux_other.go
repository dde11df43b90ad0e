//go:build linux && !(amd64 || arm64)

package snapshot

import "golang.org/x/sys/unix"

// fstatat stats the NUL-terminated name in the directory open as dirfd,
// without following a final symbolic link.
func fstatat(dirfd int, cname []byte, st *unix.Stat_t) error {
	return unix.Fstatat(dirfd, string(cname[:len(cname)-1]), st, unix.AT_SYMLINK_NOFOLLOW)
}
