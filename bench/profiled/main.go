// Command profiled is codeloop with profiling: it runs the same command
// line as cmd/codeloop and, when CODELOOP_CPUPROFILE names a file, writes
// a pprof CPU profile of the whole run there; when CODELOOP_TRACE names a
// file, an execution trace (go tool trace); when CODELOOP_MEMPROFILE names
// a file, a heap profile at exit whose alloc_space shows every allocation
// of the run. The benchmark harness builds
// it for `go run ./bench -cpuprofile DIR`; nothing imports it.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"runtime/trace"
	"syscall"

	"github.com/codeloop/codeloop/internal/cli"
)

func main() {
	os.Exit(run())
}

func run() int {
	if path := os.Getenv("CODELOOP_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "profiled:", err)
			return 1
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "profiled:", err)
			return 1
		}
		defer pprof.StopCPUProfile()
	}
	if path := os.Getenv("CODELOOP_TRACE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "profiled:", err)
			return 1
		}
		defer f.Close()
		if err := trace.Start(f); err != nil {
			fmt.Fprintln(os.Stderr, "profiled:", err)
			return 1
		}
		defer trace.Stop()
	}
	if path := os.Getenv("CODELOOP_MEMPROFILE"); path != "" {
		defer func() {
			f, err := os.Create(path)
			if err != nil {
				fmt.Fprintln(os.Stderr, "profiled:", err)
				return
			}
			defer f.Close()
			if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
				fmt.Fprintln(os.Stderr, "profiled:", err)
			}
		}()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}
