//go:build unix && !linux

package mcp

import "syscall"

func setParentDeathSignal(*syscall.SysProcAttr) {}
