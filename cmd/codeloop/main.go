// Command codeloop is an AI coding agent for the terminal.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/codeloop/codeloop/internal/cli"
	"github.com/codeloop/codeloop/internal/sandbox"
	"github.com/codeloop/codeloop/internal/snapshot"
)

func main() {
	// The sandbox helper is this binary run again: it confines itself and
	// becomes the shell, and never returns here.
	sandbox.Main(os.Args)
	// The snapshot keeper is this binary run again too: it holds a
	// project's change watcher between runs, and never returns here.
	snapshot.Main(os.Args)
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run executes codeloop with args and returns the process exit status. An
// interrupt or a termination signal cancels the command's context with the
// signal as its cause, so the command can save its work and exit with the
// status shells expect.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		select {
		case s := <-sigs:
			cancel(&cli.SignalError{Signal: s})
		case <-ctx.Done():
		}
	}()
	return cli.Run(ctx, args, stdin, stdout, stderr)
}
