package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"time"
)

// ShellTimeout bounds each `!` command of a template.
const ShellTimeout = 2 * time.Minute

// Shell returns a ShellFunc that runs commands as `<shell> -c <command>` in
// dir with the environment env (nil: the process's), standard output and
// standard error together. An empty shell means /bin/sh. A command that
// exits with a non-zero status still yields its output; a command that
// cannot be started, or outlives ShellTimeout, is an error.
func Shell(shell, dir string, env []string) ShellFunc {
	if shell == "" {
		shell = "/bin/sh"
	}
	return func(ctx context.Context, command string) (string, error) {
		ctx, cancel := context.WithTimeout(ctx, ShellTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, shell, "-c", command)
		cmd.Dir = dir
		cmd.Env = env
		var out bytes.Buffer
		cmd.Stdout = &out
		cmd.Stderr = &out
		// Children that keep the output open must not hold us forever.
		cmd.WaitDelay = 2 * time.Second
		err := cmd.Run()
		if err := ctx.Err(); errors.Is(err, context.DeadlineExceeded) {
			return "", fmt.Errorf("timed out after %s", ShellTimeout)
		} else if err != nil {
			return "", err
		}
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			return "", err
		}
		return out.String(), nil
	}
}
