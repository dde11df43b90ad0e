//go:build linux

package snapshot

import (
	"io/fs"
	"syscall"

	"golang.org/x/sys/unix"
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

// statOfSys is the stat of st, its mode as os.Lstat makes it for the
// files a scan keeps.
func statOfSys(st *unix.Stat_t) stat {
	mode := fs.FileMode(st.Mode & 0o777)
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFREG:
	default:
		mode |= fs.ModeIrregular
	}
	if st.Mode&unix.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if st.Mode&unix.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if st.Mode&unix.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return stat{Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano(), Ino: uint64(st.Ino), Mode: mode}
}
