// Package cli holds codeloop's commands. It parses flags, wires the core
// services together for one invocation and maps errors to exit statuses; the
// behaviour itself lives in the core packages.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/codeloop/codeloop/internal/paths"
)

// Exit statuses.
const (
	exitOK          = 0
	exitError       = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// env is what every command receives: the process's streams and
// environment, the global flags, and the directories.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	dirs           paths.Dirs
	log            *slog.Logger

	printLogs bool
	logLevel  string
	closers   []func() error
}

// exitError carries a specific exit status out of a command.
type exitCodeError struct {
	code int
	err  error
}

func (e *exitCodeError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}
func (e *exitCodeError) Unwrap() error { return e.err }

// Run executes codeloop's command line and returns the exit status.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// The version needs nothing else; answer it before building anything.
	if len(args) == 1 && (args[0] == "--version" || args[0] == "-v") {
		fmt.Fprintln(stdout, "codeloop "+versionLine())
		return exitOK
	}
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv}
	defer e.close()
	root := newRootCmd(e)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var ec *exitCodeError
	if errors.As(err, &ec) {
		if ec.err != nil {
			fmt.Fprintf(stderr, "Error: %v\n", ec.err)
		}
		return ec.code
	}
	if ctx.Err() != nil {
		return interruptedCode(ctx)
	}
	fmt.Fprintf(stderr, "Error: %v\n", err)
	if strings.Contains(err.Error(), "unknown command") || strings.Contains(err.Error(), "unknown flag") ||
		strings.Contains(err.Error(), "accepts") || strings.Contains(err.Error(), "requires") ||
		strings.HasPrefix(err.Error(), "required flag(s)") {
		return exitUsage
	}
	return exitError
}

func newRootCmd(e *env) *cobra.Command {
	var o tuiOptions
	root := &cobra.Command{
		Use:   "codeloop [dir]",
		Short: "An AI coding agent for the terminal",
		Long: "An AI coding agent for the terminal.\n\n" +
			"In a terminal, codeloop opens its interface on the project in dir (the working\n" +
			"directory by default); codeloop run answers one prompt without it.",
		Version:       versionLine(),
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.ArbitraryArgs,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return e.setup()
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.tui(cmd, args, o)
		},
	}
	addTUIFlags(root, &o)
	root.SetVersionTemplate("codeloop {{.Version}}\n")
	// A flag that does not parse (a bad number, a bad boolean) is a usage
	// error in every command.
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &exitCodeError{code: exitUsage, err: err}
	})
	root.PersistentFlags().BoolVar(&e.printLogs, "print-logs", false, "print logs to standard error")
	root.PersistentFlags().StringVar(&e.logLevel, "log-level", "INFO", "log level: DEBUG, INFO, WARN or ERROR")
	root.AddCommand(
		newDebugCmd(e),
		newSchemaCmd(e),
		newAgentCmd(e),
		newRunCmd(e),
		newSessionCmd(e),
		newExportCmd(e),
		newImportCmd(e),
		newPermissionsCmd(e),
		newMCPCmd(e),
		newModelsCmd(e),
		newAuthCmd(e),
		newACPCmd(e),
		newServeCmd(e), newAttachCmd(e), newWebCmd(e),
		newTrustCmd(e),
		newStatsCmd(e),
		newGitHubCmd(e),
		newUpgradeCmd(e), newCompletionCmd(e), newManCmd(e),
	)
	return root
}

// setup resolves the directories and opens the log.
func (e *env) setup() error {
	dirs, err := paths.Resolve(e.getenv)
	if err != nil {
		return err
	}
	e.dirs = dirs
	var level slog.Level
	if err := level.UnmarshalText([]byte(e.logLevel)); err != nil {
		return &exitCodeError{code: exitUsage, err: fmt.Errorf("--log-level %q: want DEBUG, INFO, WARN or ERROR", e.logLevel)}
	}
	opts := &slog.HandlerOptions{Level: level}
	if e.printLogs {
		e.log = slog.New(slog.NewTextHandler(e.stderr, opts))
		return nil
	}
	if err := os.MkdirAll(dirs.Log(), 0o755); err != nil {
		// Logging is never a reason to fail a command.
		e.log = slog.New(slog.DiscardHandler)
		return nil
	}
	name := filepath.Join(dirs.Log(), time.Now().Format("2006-01-02")+".log")
	f, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		e.log = slog.New(slog.DiscardHandler)
		return nil
	}
	e.closers = append(e.closers, f.Close)
	e.log = slog.New(slog.NewJSONHandler(f, opts)).With("pid", os.Getpid())
	return nil
}

func (e *env) close() {
	for i := len(e.closers) - 1; i >= 0; i-- {
		_ = e.closers[i]()
	}
	e.closers = nil
}
