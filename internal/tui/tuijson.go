package tui

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tailscale/hujson"
)

// openCodeKeybinds reads the keybinds of OpenCode's own interface files,
// tui.json (JSONC) in the user's config directory and then in the
// project's .opencode directory, a later file's binding of an action
// replacing an earlier one. A file that is there but cannot be read is
// reported.
func openCodeKeybinds(configHome, projectDir string) (map[string]string, []string) {
	var paths []string
	if configHome != "" {
		paths = append(paths, filepath.Join(configHome, "opencode", "tui.json"))
	}
	if projectDir != "" {
		paths = append(paths, filepath.Join(projectDir, ".opencode", "tui.json"))
	}
	out := map[string]string{}
	var problems []string
	for _, path := range paths {
		if _, err := os.Stat(path); err != nil {
			continue
		}
		b, err := readSmall(path)
		if err == nil {
			b, err = hujson.Standardize(b)
		}
		var f struct {
			Keybinds map[string]any `json:"keybinds"`
		}
		if err == nil {
			err = json.Unmarshal(b, &f)
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", path, err))
			continue
		}
		for k, v := range f.Keybinds {
			switch v := v.(type) {
			case string:
				out[k] = v
			case bool:
				if !v {
					out[k] = "none"
				}
			default:
				problems = append(problems, fmt.Sprintf("%s: keybinds.%s: want a string", path, k))
			}
		}
	}
	return out, problems
}
