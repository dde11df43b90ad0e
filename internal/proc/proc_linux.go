package proc

import (
	"runtime"
	"syscall"
)

// deathSignal sets the parent-death signal.
func deathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

// lockThread locks the calling goroutine to its thread, so that the thread
// that starts a process lives at least as long as the goroutine waits for
// it, and returns the unlock.
func lockThread() func() {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}
