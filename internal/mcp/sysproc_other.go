//go:build !unix

package mcp

import (
	"os"
	"os/exec"
)

func setProcessGroup(*exec.Cmd) {}

func termGroup(p *os.Process) error { return killGroup(p) }

func killGroup(p *os.Process) error {
	if p == nil {
		return nil
	}
	return p.Kill()
}
