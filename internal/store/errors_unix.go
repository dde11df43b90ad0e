//go:build unix

package store

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// diagnoseIO says why writing the database at path failed with an I/O
// error, looking at the file-size limit and the free space.
func diagnoseIO(path string) string {
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_FSIZE, &lim) == nil && uint64(lim.Cur) != uint64(unix.RLIM_INFINITY) {
		for _, f := range []string{path, path + "-wal", path + "-journal"} {
			if st, err := os.Stat(f); err == nil && uint64(st.Size())+64<<10 >= uint64(lim.Cur) {
				return "file too large: the file-size limit (ulimit -f) is reached; raise it or free the space"
			}
		}
	}
	var fs unix.Statfs_t
	if unix.Statfs(filepath.Dir(path), &fs) == nil && uint64(fs.Bavail)*uint64(fs.Bsize) < 1<<20 {
		return "no space left on the device: free some space and run the command again"
	}
	return "an input/output error: the disk may be full or failing"
}
