package cli

import (
	"strings"
	"testing"
)

// TestRootWithoutTerminal: without a terminal, codeloop and codeloop
// <dir> print the help and succeed; an argument that is neither a command
// nor a directory is a usage error that suggests the command meant.
func TestRootWithoutTerminal(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{name: "no arguments", args: nil, code: exitOK, stdout: "Usage:\n  codeloop [dir] [flags]"},
		{name: "a directory", args: []string{dir}, code: exitOK, stdout: "Usage:\n  codeloop [dir] [flags]"},
		{name: "flags of the interface", args: []string{"-c", "--agent", "plan"}, code: exitOK, stdout: "--prompt string"},
		{name: "not a directory", args: []string{"fix-the-bug"}, code: exitUsage, stderr: `unknown command "fix-the-bug" for "codeloop"`},
		{name: "a misspelt command", args: []string{"sesion"}, code: exitUsage, stderr: "Did you mean this?\n\tsession"},
		{name: "two directories", args: []string{dir, dir}, code: exitUsage, stderr: "unknown command"},
		{name: "a task", args: []string{"fix the bug"}, code: exitUsage, stderr: `To give codeloop a task, run: codeloop run "fix the bug"`},
		{name: "a task in words", args: []string{"fix", "the", "bug"}, code: exitUsage, stderr: `codeloop run "fix the bug"`},
		{name: "the sandbox flag", args: []string{"--sandbox", "workspace-write"}, code: exitOK, stdout: "Usage:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, "", tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout %q\nstderr %q", code, tt.code, out, errOut)
			}
			if !strings.Contains(out, tt.stdout) || !strings.Contains(errOut, tt.stderr) {
				t.Errorf("stdout %q\nstderr %q\nwant %q and %q", out, errOut, tt.stdout, tt.stderr)
			}
		})
	}
}
