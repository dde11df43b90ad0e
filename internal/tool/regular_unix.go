//go:build unix

package tool

import (
	"os"
	"syscall"
)

// openReadFlags open for reading without waiting for a named pipe's writer.
const openReadFlags = os.O_RDONLY | syscall.O_NONBLOCK

// keepOwner gives f the owner and group of the file it replaces, when they
// differ from f's and this process may change them; otherwise f keeps
// codeloop's user and the directory's group.
func keepOwner(f *os.File, old os.FileInfo) {
	want, ok := old.Sys().(*syscall.Stat_t)
	if !ok {
		return
	}
	info, err := f.Stat()
	if err != nil {
		return
	}
	if have, ok := info.Sys().(*syscall.Stat_t); ok && have.Uid == want.Uid && have.Gid == want.Gid {
		return
	}
	if f.Chown(int(want.Uid), int(want.Gid)) != nil {
		_ = f.Chown(-1, int(want.Gid)) // a user may still give a group of theirs
	}
}
