//go:build linux

package snapshot

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io/fs"

	"golang.org/x/sys/unix"
)

// dirHandle is an open directory being walked.
type dirHandle struct {
	fd int
}

// openDir opens the directory at path for listing.
func openDir(path string) (dirHandle, error) {
	for {
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return dirHandle{}, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		return dirHandle{fd: fd}, nil
	}
}

func (d dirHandle) close() { unix.Close(d.fd) }

// direntBufSize is the size of the buffer the directory is read into.
const direntBufSize = 16 << 10

// list reads every entry of d into l, with buf as the read buffer.
func (d dirHandle) list(l *dirList, buf []byte) error {
	l.reset()
	for {
		n, err := unix.Getdents(d.fd, buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return &fs.PathError{Op: "getdents", Path: ".", Err: err}
		}
		if n <= 0 {
			return nil
		}
		// struct linux_dirent64: ino (8), off (8), reclen (2), type (1),
		// then the name, NUL-terminated and padded.
		for off := 0; off+19 <= n; {
			reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
			if reclen < 19 || off+reclen > n {
				break
			}
			name := buf[off+19 : off+reclen]
			l.add(name[:nameLen(name)], direntType(buf[off+18]))
			off += reclen
		}
	}
}

// direntType is the file type of a dirent's type byte.
func direntType(t byte) fs.FileMode {
	switch t {
	case unix.DT_REG:
		return 0
	case unix.DT_DIR:
		return fs.ModeDir
	case unix.DT_LNK:
		return fs.ModeSymlink
	case unix.DT_UNKNOWN:
		return modeUnknown
	default:
		return fs.ModeDevice // a socket, a pipe, a device: nothing to restore
	}
}

// stat stats entry e of l in d without following a final symbolic link.
func (d dirHandle) stat(l *dirList, e *dirEnt) (stat, error) {
	var st unix.Stat_t
	for {
		err := fstatat(d.fd, l.cname(e), &st)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return stat{}, err
		}
		return statOfSys(&st), nil
	}
}

// nameLen is the length of the NUL-terminated name at the start of b.
func nameLen(b []byte) int {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return i
	}
	return len(b)
}

// cname is the name of e with its NUL.
func (l *dirList) cname(e *dirEnt) []byte { return l.names[e.off : e.off+e.n+1] }
