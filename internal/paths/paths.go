// Package paths resolves the directories codeloop keeps its files in,
// following the XDG base-directory convention.
//
// It imports nothing of codeloop's.
package paths

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// App is the directory name used under each base directory.
const App = "codeloop"

// Dirs are the directories codeloop uses.
type Dirs struct {
	Data   string // database, tool-output/, snapshot/, log/, auth.json
	Config string // global config files, agents, commands, skills
	Cache  string // models.json and other refetchable data
	State  string // recent models and other small state
	Home   string // the user's home directory
}

// Resolve computes the directories from the environment: CODELOOP_DATA_DIR,
// CODELOOP_CONFIG_DIR, CODELOOP_CACHE_DIR and CODELOOP_STATE_DIR first, then
// the XDG_*_HOME variables, then the XDG defaults under the home directory.
func Resolve(getenv func(string) string) (Dirs, error) {
	home := getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return Dirs{}, fmt.Errorf("finding the home directory: %w (set HOME)", err)
		}
		home = h
	}
	pick := func(own, xdg, def string) string {
		if v := getenv(own); v != "" {
			return v
		}
		if v := getenv(xdg); v != "" && filepath.IsAbs(v) {
			return filepath.Join(v, App)
		}
		return filepath.Join(home, def, App)
	}
	return Dirs{
		Data:   pick("CODELOOP_DATA_DIR", "XDG_DATA_HOME", ".local/share"),
		Config: pick("CODELOOP_CONFIG_DIR", "XDG_CONFIG_HOME", ".config"),
		Cache:  pick("CODELOOP_CACHE_DIR", "XDG_CACHE_HOME", ".cache"),
		State:  pick("CODELOOP_STATE_DIR", "XDG_STATE_HOME", ".local/state"),
		Home:   home,
	}, nil
}

// Sub-directories and files of the data directory.
func (d Dirs) Database() string   { return filepath.Join(d.Data, "codeloop.db") }
func (d Dirs) ToolOutput() string { return filepath.Join(d.Data, "tool-output") }
func (d Dirs) Snapshot() string   { return filepath.Join(d.Data, "snapshot") }
func (d Dirs) Log() string        { return filepath.Join(d.Data, "log") }
func (d Dirs) Auth() string       { return filepath.Join(d.Data, "auth.json") }
func (d Dirs) MCPAuth() string    { return filepath.Join(d.Data, "mcp-auth.json") }

// OpenCodeConfig is OpenCode's global config directory, read as well as
// codeloop's own so an OpenCode user's setup works unchanged.
func (d Dirs) OpenCodeConfig(getenv func(string) string) string {
	if v := getenv("XDG_CONFIG_HOME"); v != "" && filepath.IsAbs(v) {
		return filepath.Join(v, "opencode")
	}
	return filepath.Join(d.Home, ".config", "opencode")
}

// Ensure creates the data, cache and state directories and the data
// directory's sub-directories. Directories that cannot be made for the
// same reason in the same place (an unwritable home, say) are reported
// once, with what to do.
func (d Dirs) Ensure() error {
	var msgs []string
	seen := map[string]bool{}
	for _, dir := range []string{d.Data, d.Cache, d.State, d.ToolOutput(), d.Log()} {
		err := os.MkdirAll(dir, 0o755)
		if err == nil {
			continue
		}
		msg := err.Error()
		var pe *fs.PathError
		if errors.As(err, &pe) {
			msg = fmt.Sprintf("cannot create directories in %s: %v", filepath.Dir(pe.Path), pe.Err)
		}
		if !seen[msg] {
			seen[msg] = true
			msgs = append(msgs, msg)
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return fmt.Errorf("%s; make it writable, or point XDG_DATA_HOME, XDG_CACHE_HOME and XDG_STATE_HOME "+
		"(or CODELOOP_DATA_DIR, CODELOOP_CACHE_DIR and CODELOOP_STATE_DIR) at writable directories", strings.Join(msgs, "; "))
}

// Down returns the directories from stop down to start, outermost first, so
// that nearer files can override farther ones. When stop is empty or not an
// ancestor of start, only start is returned.
func Down(start, stop string) []string {
	start = filepath.Clean(start)
	var up []string
	for dir := start; ; {
		up = append(up, dir)
		if stop == "" || dir == filepath.Clean(stop) {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return []string{start}
		}
		dir = parent
	}
	for i, j := 0, len(up)-1; i < j; i, j = i+1, j-1 {
		up[i], up[j] = up[j], up[i]
	}
	return up
}
