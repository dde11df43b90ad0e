//go:build !linux && !darwin

package sandbox

import (
	"context"
	"io"
	"os/exec"
	"runtime"
)

func probeStatus(context.Context, string) Status {
	return Status{Reason: "confining commands is implemented for Linux and macOS, not " + runtime.GOOS}
}

func wrapCommand(*exec.Cmd, string, Policy, bool) error { return ErrUnavailable }

func helper([]string, io.Writer, io.Writer) int { return 126 }
