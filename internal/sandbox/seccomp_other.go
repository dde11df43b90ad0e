//go:build linux && !amd64 && !arm64

package sandbox

import "errors"

func installFilter(Policy) error {
	return errors.New("no seccomp filter for this architecture")
}
