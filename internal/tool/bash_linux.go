//go:build linux

package tool

import "syscall"

// dieWithParent has the kernel kill the command if codeloop dies without
// stopping it (SIGKILL, a crash). The signal follows the death of the
// thread that started the command; Go keeps its threads alive for the
// process's life unless a goroutine locked to one exits, which codeloop's
// tool code never does.
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
