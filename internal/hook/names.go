package hook

import (
	"encoding/json"
	"strings"
)

// ccNames maps codeloop's tool ids to the names Claude Code gives the same
// tools, which hook matchers and scripts written for Claude Code use.
var ccNames = map[string]string{
	"bash":      "Bash",
	"read":      "Read",
	"write":     "Write",
	"edit":      "Edit",
	"multiedit": "MultiEdit",
	"glob":      "Glob",
	"grep":      "Grep",
	"list":      "LS",
	"webfetch":  "WebFetch",
	"websearch": "WebSearch",
	"task":      "Task",
	"todowrite": "TodoWrite",
	"todoread":  "TodoRead",
	"skill":     "Skill",
	"question":  "AskUserQuestion",
	"plan_exit": "ExitPlanMode",
	"lsp":       "LSP",
}

// aliases are further Claude Code names a tool answers to in matchers.
var aliases = map[string][]string{
	"task": {"Agent"},
	"edit": {"MultiEdit"},
}

// renames are the argument names that differ between codeloop's tools and
// Claude Code's, codeloop's first.
var renames = map[string][][2]string{
	"read":  {{"filePath", "file_path"}},
	"write": {{"filePath", "file_path"}},
	"edit": {{"filePath", "file_path"}, {"oldString", "old_string"}, {"newString", "new_string"},
		{"replaceAll", "replace_all"}},
	"grep": {{"include", "glob"}},
}

// mcpSanitize is the MCP client's sanitising of server and tool names.
func mcpSanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, s)
}

// Names translates codeloop's tool ids to the names hooks see.
type Names struct {
	// MCPServers are the configured MCP servers' names; a tool id
	// <server>_<tool> of one of them is shown as mcp__<server>__<tool>.
	MCPServers []string
}

// Name is the name hooks see for the tool with codeloop id id: Claude
// Code's name for a built-in tool, mcp__<server>__<tool> for an MCP tool,
// and the id itself for any other (apply_patch, custom tools).
func (n Names) Name(id string) string {
	if cc, ok := ccNames[id]; ok {
		return cc
	}
	best := ""
	for _, s := range n.MCPServers {
		p := mcpSanitize(s) + "_"
		if strings.HasPrefix(id, p) && len(p) > len(best) {
			best = p
		}
	}
	if best != "" {
		return "mcp__" + strings.TrimSuffix(best, "_") + "__" + id[len(best):]
	}
	return id
}

// candidates are every name a matcher may use for the tool: the name
// hooks see, its aliases and codeloop's own id.
func (n Names) candidates(id string) []string {
	out := []string{n.Name(id)}
	out = append(out, aliases[id]...)
	if out[0] != id {
		out = append(out, id)
	}
	return out
}

// ccInput rewrites a codeloop tool's arguments into Claude Code's shape.
// Paths are left as the tool received them.
func ccInput(id string, in json.RawMessage) json.RawMessage {
	return renameKeys(id, in, 0, 1)
}

// codeloopInput rewrites arguments in Claude Code's shape (a hook's
// updatedInput) back into codeloop's.
func codeloopInput(id string, in json.RawMessage) json.RawMessage {
	return renameKeys(id, in, 1, 0)
}

func renameKeys(id string, in json.RawMessage, from, to int) json.RawMessage {
	pairs := renames[id]
	if len(pairs) == 0 || len(in) == 0 {
		return in
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(in, &obj); err != nil || obj == nil {
		return in
	}
	for _, p := range pairs {
		if v, ok := obj[p[from]]; ok {
			delete(obj, p[from])
			obj[p[to]] = v
		}
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return in
	}
	return out
}
