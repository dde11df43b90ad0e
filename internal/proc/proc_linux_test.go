package proc

import (
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
)

// onEndingThread runs f on a goroutine locked to a thread that Go ends when
// f returns. Go never ends the main thread, so f must not run there: while
// a goroutine holds the main thread locked, a new goroutine cannot get it.
func onEndingThread(f func()) {
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		if syscall.Gettid() != os.Getpid() {
			defer close(done) // returning locked ends the thread
			f()
			return
		}
		defer runtime.UnlockOSThread()
		inner := make(chan struct{})
		go func() {
			defer close(inner)
			runtime.LockOSThread()
			f()
		}()
		<-inner
		close(done)
	}()
	<-done
}

// TestStartSurvivesThreadExits ends OS threads while a command runs: a
// goroutine that locks its thread and returns makes Go end that thread.
// The parent-death signal fires when the thread that started the command
// ends, so the command must not die with the thread of the goroutine that
// called Start, nor with any thread ended later.
func TestStartSurvivesThreadExits(t *testing.T) {
	var p *Process
	var err error
	onEndingThread(func() { p, err = Start(exec.Command("sleep", "30")) })
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = p.Signal(syscall.SIGKILL)
		_ = p.Wait()
	}()
	for range 100 {
		onEndingThread(func() {})
	}
	select {
	case <-p.Done():
		t.Fatalf("the command died with a thread of codeloop: %v", p.Wait())
	default:
	}
}
