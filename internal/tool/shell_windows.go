//go:build windows

package tool

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// windowsShell returns the shell that runs commands on Windows: Git
// Bash when Git for Windows is installed (the permission analysis reads
// its commands as bash), else PowerShell, whose commands the analysis
// cannot read and therefore always asks about. WSL's bash.exe in
// System32 is passed over: it runs commands in another system.
func windowsShell() string {
	if p := gitBash(os.Getenv, exec.LookPath); p != "" {
		return p
	}
	for _, name := range []string{"pwsh.exe", "powershell.exe"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return "powershell.exe"
}

// gitBash returns Git for Windows' bash.exe, or "" when there is none.
func gitBash(getenv func(string) string, lookPath func(string) (string, error)) string {
	var candidates []string
	if git, err := lookPath("git.exe"); err == nil {
		// git.exe is in Git\cmd, Git\bin or Git\mingw64\bin.
		dir := filepath.Dir(git)
		for range 3 {
			candidates = append(candidates, filepath.Join(dir, "bin", "bash.exe"))
			dir = filepath.Dir(dir)
		}
	}
	for _, env := range []string{"ProgramFiles", "ProgramW6432", "ProgramFiles(x86)"} {
		if d := getenv(env); d != "" {
			candidates = append(candidates, filepath.Join(d, "Git", "bin", "bash.exe"))
		}
	}
	if d := getenv("LOCALAPPDATA"); d != "" {
		candidates = append(candidates, filepath.Join(d, "Programs", "Git", "bin", "bash.exe"))
	}
	if p, err := lookPath("bash.exe"); err == nil && !isWSLBash(p, getenv) {
		candidates = append(candidates, p)
	}
	for _, c := range candidates {
		if info, err := os.Stat(c); err == nil && !info.IsDir() {
			return c
		}
	}
	return ""
}

// isWSLBash reports whether p is WSL's launcher in the system directory.
func isWSLBash(p string, getenv func(string) string) bool {
	sys := getenv("SystemRoot")
	if sys == "" {
		sys = `C:\Windows`
	}
	return strings.EqualFold(filepath.Dir(p), filepath.Join(sys, "System32"))
}

// isPowerShell reports whether shell is Windows PowerShell or PowerShell.
func isPowerShell(shell string) bool {
	name := strings.ToLower(strings.TrimSuffix(strings.ToLower(filepath.Base(shell)), ".exe"))
	return name == "powershell" || name == "pwsh"
}

// windowsShellArgs returns the arguments that make shell run command:
// -c for bash, -Command (without profiles or prompts) for PowerShell.
func windowsShellArgs(shell, command string) []string {
	if isPowerShell(shell) {
		return []string{shell, "-NoLogo", "-NoProfile", "-NonInteractive", "-Command", command}
	}
	return []string{shell, "-c", command}
}

// platformShell is the shell commands run in when none is configured.
func platformShell() string { return windowsShell() }

// shellArgs returns the arguments that make shell run command.
func shellArgs(shell, command string) []string { return windowsShellArgs(shell, command) }

// analysisShell is the shell the permission analysis reads commands for:
// PowerShell's commands cannot be read, so each is asked about.
func analysisShell(shell string) string { return shell }
