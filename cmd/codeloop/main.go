// Command codeloop is an AI coding agent for the terminal.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/codeloop/codeloop/internal/cli"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run executes codeloop with args and returns the process exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	return cli.Run(ctx, args, stdin, stdout, stderr)
}
