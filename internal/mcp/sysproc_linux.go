package mcp

import "syscall"

// setParentDeathSignal has the kernel terminate a server when codeloop dies
// without stopping it.
func setParentDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGTERM }
