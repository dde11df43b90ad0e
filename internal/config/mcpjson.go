package config

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/tailscale/hujson"
)

// MCPJSONFile is the name of Claude Code's project file of MCP servers.
const MCPJSONFile = ".mcp.json"

// claudeServer is one server of Claude Code's "mcpServers": a command
// (type "stdio" or none) or a URL (type "http" or "sse").
type claudeServer struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

// claudeVar is Claude Code's ${VAR} and ${VAR:-default}.
var claudeVar = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}`)

// claudeMCP turns the "mcpServers" of data into a config text with the
// same servers under "mcp". Claude Code's ${VAR} and ${VAR:-default} are
// expanded with getenv, and left as they are when getenv is nil.
func claudeMCP(data []byte, getenv func(string) string) ([]byte, error) {
	std, err := hujson.Standardize(slices.Clone(data))
	if err != nil {
		return nil, err
	}
	var file struct {
		MCPServers map[string]claudeServer `json:"mcpServers"`
	}
	if err := json.Unmarshal(std, &file); err != nil {
		return nil, err
	}
	return claudeServers(file.MCPServers, getenv)
}

func claudeServers(servers map[string]claudeServer, getenv func(string) string) ([]byte, error) {
	expand := func(s string) string {
		if getenv == nil {
			return s
		}
		return claudeVar.ReplaceAllStringFunc(s, func(m string) string {
			sub := claudeVar.FindStringSubmatch(m)
			if v := getenv(sub[1]); v != "" {
				return v
			}
			return sub[2]
		})
	}
	expandMap := func(m map[string]string) map[string]string {
		if len(m) == 0 {
			return nil
		}
		out := make(map[string]string, len(m))
		for k, v := range m {
			out[k] = expand(v)
		}
		return out
	}
	mcp := map[string]MCP{}
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		s := servers[name]
		if (s.URL != "" && s.Command == "") || s.Type == "http" || s.Type == "sse" {
			mcp[name] = MCP{Type: "remote", URL: expand(s.URL), Headers: expandMap(s.Headers)}
			continue
		}
		cmd := []string{expand(s.Command)}
		for _, a := range s.Args {
			cmd = append(cmd, expand(a))
		}
		mcp[name] = MCP{Type: "local", Command: cmd, Environment: expandMap(s.Env)}
	}
	if len(mcp) == 0 {
		return []byte("{}"), nil
	}
	return json.Marshal(map[string]any{"mcp": mcp})
}

// mcpJSON reads Claude Code's .mcp.json in dir as a layer of the config:
// its servers as the "mcp" key would name them.
func (l *loader) mcpJSON(ctx context.Context, dir string) {
	path := filepath.Join(dir, MCPJSONFile)
	if l.err != nil || slices.Contains(l.out.Files, path) {
		return
	}
	if err := ctx.Err(); err != nil {
		l.err = err
		return
	}
	data, err := os.ReadFile(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && !isDir(path) {
			l.err = &Error{File: path, Msg: err.Error()}
		}
		return
	}
	full, err := claudeMCP(data, l.getenv)
	if err != nil {
		l.err = &Error{File: path, Msg: "not a Claude Code .mcp.json: " + err.Error()}
		return
	}
	guarded, _ := claudeMCP(data, nil)
	l.out.Files = append(l.out.Files, path)
	if l.project {
		l.out.ProjectFiles = append(l.out.ProjectFiles, path)
	}
	// The file's own lines, with its key spelt as the config's, so that a
	// held-back server is shown at its line.
	lines := bytes.Replace(data, []byte(`"mcpServers"`), []byte(`"mcp"`), 1)
	l.layers(path, dir, full, guarded, lines)
}

// claudeUserMCP reads the MCP servers of the user's ~/.claude.json (or
// $CLAUDE_CONFIG_DIR/.claude.json): the user's servers ("mcpServers") and
// those the user added for this project ("projects", by directory). The
// file is Claude Code's own state: one that cannot be read is skipped.
func (l *loader) claudeUserMCP(home string) {
	dir := l.getenv("CLAUDE_CONFIG_DIR")
	if dir == "" {
		dir = home
	}
	if l.err != nil || dir == "" {
		return
	}
	path := filepath.Join(dir, ".claude.json")
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	var file struct {
		MCPServers map[string]claudeServer `json:"mcpServers"`
		Projects   map[string]struct {
			MCPServers map[string]claudeServer `json:"mcpServers"`
		} `json:"projects"`
	}
	if json.Unmarshal(data, &file) != nil {
		return
	}
	servers := maps.Clone(file.MCPServers)
	if servers == nil {
		servers = map[string]claudeServer{}
	}
	maps.Copy(servers, file.Projects[l.root].MCPServers)
	if len(servers) == 0 {
		return
	}
	text, err := claudeServers(servers, l.getenv)
	if err != nil {
		return
	}
	l.out.Files = append(l.out.Files, path)
	l.layers(path, dir, text, text, text)
}

// claudeDisabled reports whether CODELOOP_DISABLE_CLAUDE_CODE or
// OPENCODE_DISABLE_CLAUDE_CODE is set to a true value.
func claudeDisabled(getenv func(string) string) bool {
	for _, name := range []string{"CODELOOP_DISABLE_CLAUDE_CODE", "OPENCODE_DISABLE_CLAUDE_CODE"} {
		switch strings.ToLower(getenv(name)) {
		case "1", "true", "yes", "on":
			return true
		}
	}
	return false
}
