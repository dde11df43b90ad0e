//go:build !linux

package snapshot

import (
	"io/fs"
	"os"
	"path/filepath"
)

// sysStat returns nothing where there are no inodes.
func sysStat(fs.FileInfo) (ino uint64, ctime int64) { return 0, 0 }

// lstatIn stats name in the directory at dirPath.
func lstatIn(_ *os.File, dirPath, name string) (stat, error) {
	info, err := os.Lstat(filepath.Join(dirPath, name))
	if err != nil {
		return stat{}, err
	}
	return statOf(info), nil
}
