//go:build !unix

package store

import "os"

// tryLockFile takes the lock at once: without file locks, processes
// sharing a session are not kept apart.
func tryLockFile(*os.File) (bool, error) { return true, nil }

func unlockFile(*os.File) {}
