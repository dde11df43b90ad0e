package agent

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/paths"
	"github.com/codeloop/codeloop/internal/permission"
)

// rulesFromConfig turns the permission section of a config file into a
// ruleset, keeping the file's order. Patterns "~", "~/…", "$HOME" and "$HOME/…" are
// expanded to home.
func rulesFromConfig(p config.Permission, home string) permission.Ruleset {
	out := make(permission.Ruleset, 0, len(p))
	for _, r := range p {
		out = append(out, permission.Rule{Permission: r.Permission, Pattern: expandHome(r.Pattern, home), Action: permission.Action(r.Action), Floor: r.Floor})
	}
	return out
}

// rulesFromConfigAndTools is the ruleset of a config (or agent) section
// with both forms: the legacy tools map first, the permission rules after it.
func rulesFromConfigAndTools(p config.Permission, tools map[string]bool, home string) permission.Ruleset {
	return permission.Merge(permission.FromTools(tools), rulesFromConfig(p, home))
}

// defaultRules is the ruleset every agent starts from: everything allowed
// except that a repeated identical tool call (doom_loop) asks, touching
// files outside the project (external_directory) asks unless they are in
// the tool-output directory, codeloop's temporary directory or one of
// allowedDirs (skill directories, say), reading .env files asks, and the
// question and plan-switch tools are off until an agent turns them on.
func defaultRules(dirs paths.Dirs, allowedDirs ...string) permission.Ruleset {
	rs := permission.Ruleset{
		{Permission: "*", Pattern: "*", Action: permission.Allow},
		{Permission: "doom_loop", Pattern: "*", Action: permission.Ask},
		{Permission: "external_directory", Pattern: "*", Action: permission.Ask},
		{Permission: "external_directory", Pattern: filepath.Join(dirs.ToolOutput(), "*"), Action: permission.Allow},
		{Permission: "external_directory", Pattern: filepath.Join(os.TempDir(), paths.App, "*"), Action: permission.Allow},
	}
	for _, d := range allowedDirs {
		rs = append(rs, permission.Rule{Permission: "external_directory", Pattern: filepath.Join(d, "*"), Action: permission.Allow})
	}
	rs = append(rs,
		permission.Rule{Permission: "question", Pattern: "*", Action: permission.Deny},
		permission.Rule{Permission: "plan_enter", Pattern: "*", Action: permission.Deny},
		permission.Rule{Permission: "plan_exit", Pattern: "*", Action: permission.Deny},
		permission.Rule{Permission: "read", Pattern: "*", Action: permission.Allow},
		permission.Rule{Permission: "read", Pattern: "*.env", Action: permission.Ask},
		permission.Rule{Permission: "read", Pattern: "*.env.*", Action: permission.Ask},
		permission.Rule{Permission: "read", Pattern: "*.env.example", Action: permission.Allow},
	)
	for i := range rs {
		rs[i].Default = true
	}
	return rs
}

// expandHome expands the rule pattern "~", "~/…", "$HOME" or "$HOME/…" to
// home.
func expandHome(pattern, home string) string {
	switch {
	case pattern == "~" || pattern == "$HOME":
		return home
	case strings.HasPrefix(pattern, "~/"):
		return home + pattern[1:]
	case strings.HasPrefix(pattern, "$HOME/"):
		return home + pattern[len("$HOME"):]
	}
	return pattern
}
