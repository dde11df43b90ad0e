package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/paths"
	"github.com/codeloop/codeloop/internal/permission"
)

func TestRulesFromConfig(t *testing.T) {
	tests := []struct {
		name, json string
		want       permission.Ruleset
	}{
		{"action for everything", `"allow"`, permission.Ruleset{{Permission: "*", Pattern: "*", Action: permission.Allow}}},
		{"deny everything", `"deny"`, permission.Ruleset{{Permission: "*", Pattern: "*", Action: permission.Deny}}},
		{"actions by permission", `{"edit": "ask", "bash": "deny", "webfetch": "allow"}`,
			permission.Ruleset{{Permission: "edit", Pattern: "*", Action: permission.Ask}, {Permission: "bash", Pattern: "*", Action: permission.Deny}, {Permission: "webfetch", Pattern: "*", Action: permission.Allow}}},
		{"patterns by permission, key order kept", `{"bash": {"*": "ask", "git *": "allow", "git push *": "deny", "ls": "allow"}}`,
			permission.Ruleset{{Permission: "bash", Pattern: "*", Action: permission.Ask}, {Permission: "bash", Pattern: "git *", Action: permission.Allow}, {Permission: "bash", Pattern: "git push *", Action: permission.Deny}, {Permission: "bash", Pattern: "ls", Action: permission.Allow}}},
		{"order is not alphabetical", `{"zeta": "deny", "alpha": "allow", "mid": {"b": "ask", "a": "deny"}}`,
			permission.Ruleset{{Permission: "zeta", Pattern: "*", Action: permission.Deny}, {Permission: "alpha", Pattern: "*", Action: permission.Allow}, {Permission: "mid", Pattern: "b", Action: permission.Ask}, {Permission: "mid", Pattern: "a", Action: permission.Deny}}},
		{"mixed forms", `{"*": "ask", "read": {"*": "allow", "*.env": "deny"}, "external_directory": "deny"}`,
			permission.Ruleset{{Permission: "*", Pattern: "*", Action: permission.Ask}, {Permission: "read", Pattern: "*", Action: permission.Allow}, {Permission: "read", Pattern: "*.env", Action: permission.Deny}, {Permission: "external_directory", Pattern: "*", Action: permission.Deny}}},
		{"home expansion", `{"external_directory": {"~": "allow", "~/code/*": "allow", "$HOME": "ask", "$HOME/.ssh/*": "deny", "~user/x": "ask", "/tmp/~/x": "ask", "$HOMEDIR": "ask"}}`,
			permission.Ruleset{{Permission: "external_directory", Pattern: "/home/u", Action: permission.Allow}, {Permission: "external_directory", Pattern: "/home/u/code/*", Action: permission.Allow},
				{Permission: "external_directory", Pattern: "/home/u", Action: permission.Ask}, {Permission: "external_directory", Pattern: "/home/u/.ssh/*", Action: permission.Deny},
				{Permission: "external_directory", Pattern: "~user/x", Action: permission.Ask}, {Permission: "external_directory", Pattern: "/tmp/~/x", Action: permission.Ask}, {Permission: "external_directory", Pattern: "$HOMEDIR", Action: permission.Ask}}},
		{"list form", `[{"permission": "bash", "pattern": "rm *", "action": "deny"}]`, permission.Ruleset{{Permission: "bash", Pattern: "rm *", Action: permission.Deny}}},
		{"null", `null`, permission.Ruleset{}},
	}
	for _, tt := range tests {
		var p config.Permission
		if err := json.Unmarshal([]byte(tt.json), &p); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := rulesFromConfig(p, "/home/u"); !slices.Equal(got, tt.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.name, got, tt.want)
		}
	}
	// The whole config: the permission section of a file and of an agent.
	var cfg config.Config
	src := `{"permission": {"bash": {"*": "ask", "npm *": "allow"}}, "tools": {"write": false, "webfetch": true},
		"agent": {"review": {"permission": {"edit": "deny"}, "tools": {"bash": false}}}}`
	if err := json.Unmarshal([]byte(src), &cfg); err != nil {
		t.Fatal(err)
	}
	got := rulesFromConfigAndTools(cfg.Permission, cfg.Tools, "/home/u")
	want := permission.Ruleset{{Permission: "webfetch", Pattern: "*", Action: permission.Allow}, {Permission: "edit", Pattern: "*", Action: permission.Deny}, {Permission: "bash", Pattern: "*", Action: permission.Ask}, {Permission: "bash", Pattern: "npm *", Action: permission.Allow}}
	if !slices.Equal(got, want) {
		t.Errorf("config with tools:\n got %+v\nwant %+v", got, want)
	}
	review := cfg.Agent["review"]
	if got := rulesFromConfigAndTools(review.Permission, review.Tools, "/home/u"); !slices.Equal(got, permission.Ruleset{{Permission: "bash", Pattern: "*", Action: permission.Deny}, {Permission: "edit", Pattern: "*", Action: permission.Deny}}) {
		t.Errorf("agent section: %+v", got)
	}
}

func TestFromToolsPermissionWins(t *testing.T) {
	// The permission section overrides the legacy tools map.
	rs := rulesFromConfigAndTools(config.Permission{{Permission: "bash", Pattern: "git *", Action: "allow"}},
		map[string]bool{"bash": false, "edit": true, "patch": false, "apply_patch": true, "multiedit": false}, "/h")
	if r, _ := permission.Evaluate("bash", "git status", rs); r.Action != permission.Allow {
		t.Errorf("permission rule lost to tools: %+v", r)
	}
	if r, _ := permission.Evaluate("bash", "ls", rs); r.Action != permission.Deny {
		t.Errorf("tools: false not applied: %+v", r)
	}
	for _, r := range rs[:5] {
		if r.Permission != "edit" && r.Permission != "bash" {
			t.Errorf("file tool not mapped to edit: %+v", r)
		}
	}
}

func TestDefaults(t *testing.T) {
	dirs := paths.Dirs{Data: "/data/codeloop", Home: "/home/u"}
	rs := defaultRules(dirs, "/skills/deploy")
	tmp := filepath.Join(os.TempDir(), "codeloop")
	tests := []struct {
		perm, value string
		want        permission.Action
	}{
		{"bash", "rm -rf /", permission.Allow},
		{"edit", "main.go", permission.Allow},
		{"doom_loop", "bash", permission.Ask},
		{"external_directory", "/etc/*", permission.Ask},
		{"external_directory", "/data/codeloop/tool-output/*", permission.Allow},
		{"external_directory", "/data/codeloop/tool-output/tool_1", permission.Allow},
		{"external_directory", tmp + "/x/*", permission.Allow},
		{"external_directory", "/skills/deploy/*", permission.Allow},
		{"external_directory", "/data/codeloop/*", permission.Ask},
		{"question", "*", permission.Deny},
		{"plan_enter", "*", permission.Deny},
		{"plan_exit", "*", permission.Deny},
		{"read", "/p/main.go", permission.Allow},
		{"read", "/p/.env", permission.Ask},
		{"read", "/p/.env.local", permission.Ask},
		{"read", "/p/.env.example", permission.Allow},
		{"read", "/p/config.env", permission.Ask},
	}
	for _, tt := range tests {
		if r, _ := permission.Evaluate(tt.perm, tt.value, rs); r.Action != tt.want {
			t.Errorf("defaultRules: %s %q = %s (rule %+v), want %s", tt.perm, tt.value, r.Action, r, tt.want)
		}
	}
}
