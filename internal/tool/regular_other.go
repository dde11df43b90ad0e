//go:build !unix

package tool

import "os"

// openReadFlags open for reading.
const openReadFlags = os.O_RDONLY

// keepOwner does nothing where files have no Unix owner.
func keepOwner(*os.File, os.FileInfo) {}
