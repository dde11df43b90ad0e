//go:build linux

package sandbox

import (
	"context"
	"os/exec"
)

func probeStatus(ctx context.Context, exe string) Status { return probe(ctx, exe) }

func wrapCommand(cmd *exec.Cmd, exe string, p Policy, mountNS bool) error {
	return wrap(cmd, exe, p, mountNS)
}
