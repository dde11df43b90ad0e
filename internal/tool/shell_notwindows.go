//go:build !windows

package tool

// platformShell is the shell commands run in when none is configured:
// none of the platform's own; bash (else /bin/sh) is found on PATH.
func platformShell() string { return "" }

// shellArgs returns the arguments that make shell run command.
func shellArgs(shell, command string) []string { return []string{shell, "-c", command} }

// analysisShell is the shell the permission analysis reads commands for:
// the default (bash) where commands run in bash or sh.
func analysisShell(string) string { return "" }
