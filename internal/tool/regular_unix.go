//go:build unix

package tool

import (
	"os"
	"syscall"
)

// openReadFlags open for reading without waiting for a named pipe's writer.
const openReadFlags = os.O_RDONLY | syscall.O_NONBLOCK

// keepOwner gives f the owner and group of the file it replaces, when this
// process may; otherwise the new file belongs to codeloop's user.
func keepOwner(f *os.File, old os.FileInfo) {
	st, ok := old.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) == os.Geteuid() && int(st.Gid) == os.Getegid() {
		return
	}
	_ = f.Chown(int(st.Uid), int(st.Gid))
}
