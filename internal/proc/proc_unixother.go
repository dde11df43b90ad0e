//go:build unix && !linux

package proc

import "syscall"

// deathSignal does nothing where the kernel has no parent-death signal;
// the watcher alone covers codeloop's death.
func deathSignal(*syscall.SysProcAttr) {}

// lockThread does nothing: without a parent-death signal the starting
// thread does not matter.
func lockThread() func() { return func() {} }
