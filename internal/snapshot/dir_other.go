//go:build !linux

package snapshot

import (
	"os"
	"path/filepath"
)

// dirHandle is an open directory being walked.
type dirHandle struct {
	f    *os.File
	path string
}

// openDir opens the directory at path for listing.
func openDir(path string) (dirHandle, error) {
	f, err := os.Open(path)
	if err != nil {
		return dirHandle{}, err
	}
	return dirHandle{f: f, path: path}, nil
}

func (d dirHandle) close() { d.f.Close() }

// direntBufSize is the size of the read buffer, which only Linux uses.
const direntBufSize = 0

// list reads every entry of d into l.
func (d dirHandle) list(l *dirList, _ []byte) error {
	l.reset()
	entries, err := d.f.ReadDir(-1)
	if err != nil {
		return err
	}
	for _, e := range entries {
		l.add([]byte(e.Name()), e.Type())
	}
	return nil
}

// stat stats entry e of l in d without following a final symbolic link.
func (d dirHandle) stat(l *dirList, e *dirEnt) (stat, error) {
	info, err := os.Lstat(filepath.Join(d.path, string(l.name(e))))
	if err != nil {
		return stat{}, err
	}
	return statOf(info), nil
}
