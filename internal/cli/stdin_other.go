//go:build !unix

package cli

import (
	"os"
	"time"
)

// readable reports true: without poll, piped input is always read.
func readable(*os.File, time.Duration) bool { return true }
