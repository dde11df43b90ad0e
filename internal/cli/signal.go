package cli

import (
	"context"
	"errors"
	"os"
	"syscall"
)

// SignalError is the cause of a context cancelled by a signal.
type SignalError struct {
	Signal os.Signal
}

func (e *SignalError) Error() string { return e.Signal.String() + " signal received" }

// interruptedCode is the exit status of a command stopped through ctx: 128
// plus the signal's number, as shells report it (130 for SIGINT, 143 for
// SIGTERM), and 130 when the cause is unknown.
func interruptedCode(ctx context.Context) int {
	var se *SignalError
	if errors.As(context.Cause(ctx), &se) {
		if s, ok := se.Signal.(syscall.Signal); ok {
			return 128 + int(s)
		}
	}
	return exitInterrupted
}

// signalName names the signal that stopped ctx, "" when none did.
func signalName(ctx context.Context) string {
	var se *SignalError
	if errors.As(context.Cause(ctx), &se) {
		if s, ok := se.Signal.(syscall.Signal); ok {
			switch s {
			case syscall.SIGINT:
				return "SIGINT"
			case syscall.SIGTERM:
				return "SIGTERM"
			case syscall.SIGHUP:
				return "SIGHUP"
			}
		}
		return se.Signal.String()
	}
	return ""
}
