package snapshot

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The store's size is kept in a file between processes, so that a run
// does not walk every object to learn it. A process takes the file when it
// opens the store (reads and removes it) and writes it back when it closes
// the store. A missing file means the last process did not close the store
// (it crashed, or it is still running): then the store is measured and the
// temporary files of ended processes are removed, as on the first open.
// Processes that overlap may count some growth twice; too large a size
// only brings a collection sooner, and a collection measures the store.

// sizeFile is where the size is kept.
func (s *Store) sizeFile() string { return filepath.Join(s.dir, "size") }

// takeSize reads and removes the saved size; false when there is none.
func (s *Store) takeSize() (int64, bool) {
	n, ok := readSize(s.sizeFile())
	if ok && os.Remove(s.sizeFile()) != nil {
		return 0, false // another process took it first
	}
	return n, ok
}

func readSize(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// saveSize writes the size back at Close: this process's count, or, when
// a process that overlapped it closed first, that one's count and what
// this one added.
func (s *Store) saveSize() error {
	s.sizeMu.Lock()
	size, delta := s.size, s.delta
	s.sizeMu.Unlock()
	if size < 0 {
		return nil
	}
	if other, ok := readSize(s.sizeFile()); ok {
		size = max(0, other+delta)
	}
	return writeFileAtomic(s.sizeFile(), strconv.AppendInt(nil, size, 10))
}
