package agent

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/codeloop/codeloop/internal/config"
)

// claudeTools maps Claude Code tool names (lower-cased) to the permission
// names of codeloop's tools.
var claudeTools = map[string]string{
	"bash":            "bash",
	"read":            "read",
	"write":           "edit",
	"edit":            "edit",
	"multiedit":       "edit",
	"notebookedit":    "edit",
	"glob":            "glob",
	"grep":            "grep",
	"ls":              "list",
	"webfetch":        "webfetch",
	"websearch":       "websearch",
	"todowrite":       "todowrite",
	"taskcreate":      "todowrite",
	"taskupdate":      "todowrite",
	"tasklist":        "todowrite",
	"taskget":         "todowrite",
	"agent":           "task",
	"task":            "task",
	"skill":           "skill",
	"askuserquestion": "question",
	"exitplanmode":    "plan_exit",
	"enterplanmode":   "plan_enter",
	"lsp":             "lsp",
}

// claudeModelAliases are the model names Claude Code resolves to the newest
// model of a family.
var claudeModelAliases = map[string]bool{"sonnet": true, "opus": true, "haiku": true, "fable": true}

// ClaudeToolRules translates one entry of a Claude Code tool list ("Read",
// "Bash(git log:*)", "Agent(explore, general)", "mcp__github__create_issue")
// into codeloop permission rules with the given action.
func ClaudeToolRules(entry, action string) []config.PermissionRule {
	entry = strings.TrimSpace(entry)
	name, args, hasArgs := strings.Cut(entry, "(")
	name = strings.TrimSpace(name)
	var perm string
	switch {
	case strings.HasPrefix(name, "mcp__"):
		parts := strings.SplitN(strings.TrimPrefix(name, "mcp__"), "__", 2)
		switch {
		case parts[0] == "*" || parts[0] == "":
			perm = "*_*"
		case len(parts) == 1 || parts[1] == "*":
			perm = sanitizeTool(parts[0]) + "_*"
		default:
			perm = sanitizeTool(parts[0]) + "_" + sanitizeTool(parts[1])
		}
	default:
		perm = claudeTools[strings.ToLower(name)]
		if perm == "" {
			perm = strings.ToLower(name)
		}
	}
	if !hasArgs {
		return []config.PermissionRule{{Permission: perm, Pattern: "*", Action: action}}
	}
	args = strings.TrimSuffix(strings.TrimSpace(args), ")")
	var out []config.PermissionRule
	patterns := []string{args}
	if perm == "task" {
		patterns = strings.Split(args, ",")
	}
	for _, p := range patterns {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		// Claude Code writes "git commit:*" for a prefix match.
		if rest, ok := strings.CutSuffix(p, ":*"); ok {
			p = rest + " *"
		}
		out = append(out, config.PermissionRule{Permission: perm, Pattern: p, Action: action})
	}
	return out
}

// sanitizeTool replaces the characters MCP tool names may not hold.
func sanitizeTool(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, s)
}

// claudeToolPermission turns a Claude Code tools allow-list and deny-list
// into codeloop rules: with an allow-list, everything is denied except the
// tools it names (external directories and repeated calls still ask); the
// deny-list is applied last.
func claudeToolPermission(allowed, denied []string) config.Permission {
	var p config.Permission
	if len(allowed) > 0 {
		p = append(p,
			config.PermissionRule{Permission: "*", Pattern: "*", Action: "deny"},
			config.PermissionRule{Permission: "external_directory", Pattern: "*", Action: "ask"},
			config.PermissionRule{Permission: "doom_loop", Pattern: "*", Action: "ask"},
		)
		for _, t := range allowed {
			p = append(p, ClaudeToolRules(t, "allow")...)
		}
	}
	for _, t := range denied {
		p = append(p, ClaudeToolRules(t, "deny")...)
	}
	return p
}

// ModelResolver turns a model alias ("sonnet", "haiku") into
// "provider/model"; ok is false when it cannot.
type ModelResolver func(alias string) (model string, ok bool)

// claudeModel maps a Claude Code model field onto codeloop's: "inherit" and
// empty mean the caller's model, ids with a provider are kept, other names
// go through resolve. An alias that cannot be resolved yields "" and a
// warning, so the agent runs with the caller's model.
func claudeModel(v string, resolve ModelResolver) (string, error) {
	v = strings.TrimSpace(v)
	switch {
	case v == "" || v == "inherit":
		return "", nil
	case strings.Contains(v, "/"):
		return v, nil
	}
	if resolve != nil {
		if m, ok := resolve(v); ok {
			return m, nil
		}
	}
	if claudeModelAliases[strings.ToLower(v)] {
		return "", fmt.Errorf("model alias %q could not be resolved to a configured model; the caller's model is used", v)
	}
	return v, nil
}

// ParseClaudeAgent reads a Claude Code sub-agent file (.claude/agents/*.md).
// Its name comes from the "name" field; a file without one is documentation
// and yields ok false. The agent is a sub-agent whose prompt is the body;
// "tools" and "disallowedTools" become permission rules, "maxTurns" its
// steps, "effort" its variant. A file without a name is documentation: the
// definition returned has an empty Name. Definition.Warning is set when part
// of the file could not be honoured.
func ParseClaudeAgent(p string, data []byte, resolve ModelResolver) (Definition, error) {
	m, body, err := parseFront(p, data)
	if err != nil {
		return Definition{}, err
	}
	name := strings.TrimSpace(scalar(field(m, "name")))
	if name == "" {
		return Definition{}, nil
	}
	if strings.ContainsAny(name, ":/") {
		return Definition{}, &FileError{Path: p, Err: fmt.Errorf("agent name %q may not contain ':' or '/'", name)}
	}
	desc := strings.TrimSpace(scalar(field(m, "description")))
	if desc == "" {
		return Definition{}, &FileError{Path: p, Err: fmt.Errorf("agent %q has no description", name)}
	}
	return claudeDefinition(p, m, name, desc, body, resolve), nil
}

// claudeDefinition builds the definition of a Claude-Code-style agent from
// its frontmatter mapping m.
func claudeDefinition(p string, m *yaml.Node, name, desc, body string, resolve ModelResolver) Definition {
	a := config.Agent{
		Description: desc,
		Mode:        string(ModeSubagent),
		Prompt:      body,
		Color:       scalar(field(m, "color")),
		Variant:     scalar(field(m, "effort")),
		Permission:  claudeToolPermission(list(field(m, "tools")), list(field(m, "disallowedTools"))),
	}
	if mode := scalar(field(m, "mode")); Mode(mode).Valid() {
		a.Mode = mode
	}
	def := Definition{Name: name, Source: p}
	model, werr := claudeModel(scalar(field(m, "model")), resolve)
	a.Model = model
	if werr != nil {
		def.Warning = &FileError{Path: p, Err: werr}
	}
	if t := scalar(field(m, "maxTurns")); t != "" {
		if n, err := strconv.Atoi(t); err == nil && n > 0 {
			a.Steps = &n
		}
	}
	switch scalar(field(m, "permissionMode")) {
	case "plan":
		a.Permission = append(a.Permission, config.PermissionRule{Permission: "edit", Pattern: "*", Action: "deny"})
	case "acceptEdits":
		a.Permission = append(a.Permission, config.PermissionRule{Permission: "edit", Pattern: "*", Action: "allow"})
	}
	def.Agent = a
	return def
}
