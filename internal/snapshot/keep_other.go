//go:build !linux

package snapshot

// Main does nothing where there is no change watcher to keep.
func Main(args []string) {}

// handOver keeps no watcher here.
func (s *Store) handOver(*index) bool { return false }

// takeOver finds no keeper here.
func (s *Store) takeOver(*index) bool { return false }

// stopKeeper has no keeper to stop here.
func (s *Store) stopKeeper(string) {}
