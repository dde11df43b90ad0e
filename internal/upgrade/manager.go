package upgrade

import (
	"fmt"
	"path/filepath"
	"strings"
)

// ManagedError says that a package manager installed the executable and
// should be the one to upgrade it.
type ManagedError struct {
	// Manager is npm, Homebrew or go install.
	Manager string
	// Command upgrades codeloop through the manager.
	Command string
}

func (e *ManagedError) Error() string {
	return fmt.Sprintf("codeloop was installed with %s; upgrade it with: %s", e.Manager, e.Command)
}

// Managed returns a *ManagedError when the executable at exe (with
// symbolic links resolved) belongs to a package manager, nil otherwise.
// getenv supplies GOBIN, GOPATH and HOME.
func Managed(exe string, getenv func(string) string) error {
	p := filepath.ToSlash(exe)
	switch {
	case strings.Contains(p, "/node_modules/"):
		return &ManagedError{Manager: "npm", Command: "npm install -g codeloop@latest"}
	case strings.Contains(p, "/Cellar/") || strings.HasPrefix(p, "/home/linuxbrew/.linuxbrew/"):
		return &ManagedError{Manager: "Homebrew", Command: "brew upgrade codeloop"}
	}
	dir := filepath.Dir(exe)
	for _, gobin := range goBinDirs(getenv) {
		if gobin != "" && sameDir(dir, gobin) {
			return &ManagedError{Manager: "go install", Command: "go install github.com/codeloop/codeloop/cmd/codeloop@latest"}
		}
	}
	return nil
}

// goBinDirs returns where go install puts binaries: GOBIN, else the bin
// directory of each GOPATH entry (~/go by default).
func goBinDirs(getenv func(string) string) []string {
	if b := getenv("GOBIN"); b != "" {
		return []string{b}
	}
	gopath := getenv("GOPATH")
	if gopath == "" {
		home := getenv("HOME")
		if home == "" {
			home = getenv("USERPROFILE")
		}
		if home == "" {
			return nil
		}
		gopath = filepath.Join(home, "go")
	}
	var out []string
	for _, p := range filepath.SplitList(gopath) {
		out = append(out, filepath.Join(p, "bin"))
	}
	return out
}

func sameDir(a, b string) bool {
	if ra, err := filepath.EvalSymlinks(a); err == nil {
		a = ra
	}
	if rb, err := filepath.EvalSymlinks(b); err == nil {
		b = rb
	}
	return filepath.Clean(a) == filepath.Clean(b)
}
