//go:build unix

package snapshot

import (
	"io/fs"
	"syscall"
)

// sysStat returns the inode and change time of info, which a tool cannot
// set back the way it can set a modification time.
func sysStat(info fs.FileInfo) (ino uint64, ctime int64) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0
	}
	return uint64(st.Ino), st.Ctim.Nano()
}
