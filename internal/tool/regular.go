package tool

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// NotRegularError is the error for a path that names something other than
// a regular file or directory: a named pipe, a socket or a device, whose
// reading could block forever or never end.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is a %s, not a regular file: only regular files can be read or changed", e.Path, kindOf(e.Mode))
}

func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "block device"
	case m&fs.ModeIrregular != 0:
		return "special file"
	}
	return "non-regular file"
}

// checkRegular returns a *NotRegularError unless info describes a regular
// file or a directory.
func checkRegular(path string, info fs.FileInfo) error {
	if info.Mode().IsRegular() || info.IsDir() {
		return nil
	}
	return &NotRegularError{Path: path, Mode: info.Mode()}
}

// openRegular opens path for reading, refusing anything but a regular
// file. The open itself never blocks: a named pipe swapped in after a
// check is opened without waiting for a writer and then refused.
func openRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, openReadFlags, 0)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: path, Mode: info.Mode()}
	}
	return f, nil
}

// readRegular reads the whole of the regular file at path.
func readRegular(path string) ([]byte, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
