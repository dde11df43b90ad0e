package permission

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/paths"
)

func TestEvaluateOrder(t *testing.T) {
	defaults := Ruleset{
		{Permission: "*", Pattern: "*", Action: Allow},
		{Permission: "read", Pattern: "*.env", Action: Ask},
	}
	user := Ruleset{
		{Permission: "bash", Pattern: "*", Action: Ask},
		{Permission: "bash", Pattern: "git *", Action: Allow},
		{Permission: "bash", Pattern: "git push *", Action: Deny},
	}
	agent := Ruleset{
		{Permission: "bash", Pattern: "git push --dry-run *", Action: Allow},
		{Permission: "edit", Pattern: "*", Action: Deny},
	}
	tests := []struct {
		perm, value string
		want        Action
		wantRule    int // index into Merge(defaults, user, agent), -1 for none
	}{
		{"bash", "ls", Ask, 2},
		{"bash", "git status", Allow, 3},
		{"bash", "git", Allow, 3},
		{"bash", "git push origin", Deny, 4},
		{"bash", "git push --dry-run origin", Allow, 5},
		{"edit", "main.go", Deny, 6},
		{"read", "main.go", Allow, 0},
		{"read", "/p/.env", Ask, 1},
		{"webfetch", "https://x", Allow, 0},
	}
	merged := Merge(defaults, user, agent)
	if len(merged) != 7 || merged[2] != user[0] || merged[6] != agent[1] {
		t.Fatalf("Merge = %+v", merged)
	}
	for _, tt := range tests {
		r, ok := Evaluate(tt.perm, tt.value, defaults, user, agent)
		if r.Action != tt.want || !ok || r != merged[tt.wantRule] {
			t.Errorf("Evaluate(%q, %q) = %+v, %v; want rule %d %+v", tt.perm, tt.value, r, ok, tt.wantRule, merged[tt.wantRule])
		}
		if r2, _ := Evaluate(tt.perm, tt.value, merged); r2 != r {
			t.Errorf("Evaluate over the merged ruleset differs for %q %q", tt.perm, tt.value)
		}
	}
	r, ok := Evaluate("bash", "ls", Ruleset{{Permission: "edit", Pattern: "*", Action: Allow}})
	if ok || r.Action != Ask || r.Permission != "bash" || r.Pattern != "*" {
		t.Errorf("no matching rule: %+v, %v", r, ok)
	}
	if r, ok := Evaluate("bash", "ls"); ok || r.Action != Ask {
		t.Errorf("no rulesets: %+v", r)
	}
	// Permission names are wildcards too.
	r, _ = Evaluate("mcp_github_create_issue", "x", Ruleset{{Permission: "mcp_github_*", Pattern: "*", Action: Deny}})
	if r.Action != Deny {
		t.Errorf("permission glob: %+v", r)
	}
}

func TestFromConfig(t *testing.T) {
	tests := []struct {
		name, json string
		want       Ruleset
	}{
		{"action for everything", `"allow"`, Ruleset{{Permission: "*", Pattern: "*", Action: Allow}}},
		{"deny everything", `"deny"`, Ruleset{{Permission: "*", Pattern: "*", Action: Deny}}},
		{"actions by permission", `{"edit": "ask", "bash": "deny", "webfetch": "allow"}`,
			Ruleset{{Permission: "edit", Pattern: "*", Action: Ask}, {Permission: "bash", Pattern: "*", Action: Deny}, {Permission: "webfetch", Pattern: "*", Action: Allow}}},
		{"patterns by permission, key order kept", `{"bash": {"*": "ask", "git *": "allow", "git push *": "deny", "ls": "allow"}}`,
			Ruleset{{Permission: "bash", Pattern: "*", Action: Ask}, {Permission: "bash", Pattern: "git *", Action: Allow}, {Permission: "bash", Pattern: "git push *", Action: Deny}, {Permission: "bash", Pattern: "ls", Action: Allow}}},
		{"order is not alphabetical", `{"zeta": "deny", "alpha": "allow", "mid": {"b": "ask", "a": "deny"}}`,
			Ruleset{{Permission: "zeta", Pattern: "*", Action: Deny}, {Permission: "alpha", Pattern: "*", Action: Allow}, {Permission: "mid", Pattern: "b", Action: Ask}, {Permission: "mid", Pattern: "a", Action: Deny}}},
		{"mixed forms", `{"*": "ask", "read": {"*": "allow", "*.env": "deny"}, "external_directory": "deny"}`,
			Ruleset{{Permission: "*", Pattern: "*", Action: Ask}, {Permission: "read", Pattern: "*", Action: Allow}, {Permission: "read", Pattern: "*.env", Action: Deny}, {Permission: "external_directory", Pattern: "*", Action: Deny}}},
		{"home expansion", `{"external_directory": {"~": "allow", "~/code/*": "allow", "$HOME": "ask", "$HOME/.ssh/*": "deny", "~user/x": "ask", "/tmp/~/x": "ask", "$HOMEDIR": "ask"}}`,
			Ruleset{{Permission: "external_directory", Pattern: "/home/u", Action: Allow}, {Permission: "external_directory", Pattern: "/home/u/code/*", Action: Allow},
				{Permission: "external_directory", Pattern: "/home/u", Action: Ask}, {Permission: "external_directory", Pattern: "/home/u/.ssh/*", Action: Deny},
				{Permission: "external_directory", Pattern: "~user/x", Action: Ask}, {Permission: "external_directory", Pattern: "/tmp/~/x", Action: Ask}, {Permission: "external_directory", Pattern: "$HOMEDIR", Action: Ask}}},
		{"list form", `[{"permission": "bash", "pattern": "rm *", "action": "deny"}]`, Ruleset{{Permission: "bash", Pattern: "rm *", Action: Deny}}},
		{"null", `null`, Ruleset{}},
	}
	for _, tt := range tests {
		var p config.Permission
		if err := json.Unmarshal([]byte(tt.json), &p); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := FromConfig(p, "/home/u"); !slices.Equal(got, tt.want) {
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
	got := FromConfigAndTools(cfg.Permission, cfg.Tools, "/home/u")
	want := Ruleset{{Permission: "webfetch", Pattern: "*", Action: Allow}, {Permission: "edit", Pattern: "*", Action: Deny}, {Permission: "bash", Pattern: "*", Action: Ask}, {Permission: "bash", Pattern: "npm *", Action: Allow}}
	if !slices.Equal(got, want) {
		t.Errorf("config with tools:\n got %+v\nwant %+v", got, want)
	}
	review := cfg.Agent["review"]
	if got := FromConfigAndTools(review.Permission, review.Tools, "/home/u"); !slices.Equal(got, Ruleset{{Permission: "bash", Pattern: "*", Action: Deny}, {Permission: "edit", Pattern: "*", Action: Deny}}) {
		t.Errorf("agent section: %+v", got)
	}
}

func TestFromToolsPermissionWins(t *testing.T) {
	// The permission section overrides the legacy tools map.
	rs := FromConfigAndTools(config.Permission{{Permission: "bash", Pattern: "git *", Action: "allow"}},
		map[string]bool{"bash": false, "edit": true, "patch": false, "apply_patch": true, "multiedit": false}, "/h")
	if r, _ := Evaluate("bash", "git status", rs); r.Action != Allow {
		t.Errorf("permission rule lost to tools: %+v", r)
	}
	if r, _ := Evaluate("bash", "ls", rs); r.Action != Deny {
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
	rs := Defaults(dirs, "/skills/deploy")
	tmp := filepath.Join(os.TempDir(), "codeloop")
	tests := []struct {
		perm, value string
		want        Action
	}{
		{"bash", "rm -rf /", Allow},
		{"edit", "main.go", Allow},
		{"doom_loop", "bash", Ask},
		{"external_directory", "/etc/*", Ask},
		{"external_directory", "/data/codeloop/tool-output/*", Allow},
		{"external_directory", "/data/codeloop/tool-output/tool_1", Allow},
		{"external_directory", tmp + "/x/*", Allow},
		{"external_directory", "/skills/deploy/*", Allow},
		{"external_directory", "/data/codeloop/*", Ask},
		{"question", "*", Deny},
		{"plan_enter", "*", Deny},
		{"plan_exit", "*", Deny},
		{"read", "/p/main.go", Allow},
		{"read", "/p/.env", Ask},
		{"read", "/p/.env.local", Ask},
		{"read", "/p/.env.example", Allow},
		{"read", "/p/config.env", Ask},
	}
	for _, tt := range tests {
		if r, _ := Evaluate(tt.perm, tt.value, rs); r.Action != tt.want {
			t.Errorf("Defaults: %s %q = %s (rule %+v), want %s", tt.perm, tt.value, r.Action, r, tt.want)
		}
	}
}

func TestDisabled(t *testing.T) {
	tools := []string{"bash", "edit", "write", "apply_patch", "read", "webfetch", "task", "question"}
	rs := Merge(Defaults(paths.Dirs{Data: "/d"}), Ruleset{
		{Permission: "edit", Pattern: "*", Action: Deny},
		{Permission: "bash", Pattern: "*", Action: Deny},
		{Permission: "bash", Pattern: "git *", Action: Allow}, // bash still usable for git
		{Permission: "web*", Pattern: "*", Action: Deny},
		{Permission: "task", Pattern: "general", Action: Deny}, // one pattern only
	})
	got := Disabled(tools, rs)
	var names []string
	for name := range got {
		names = append(names, name)
	}
	slices.Sort(names)
	if want := "apply_patch,edit,question,webfetch,write"; strings.Join(names, ",") != want {
		t.Errorf("Disabled = %v, want %s", names, want)
	}
	if all := Disabled(tools, Ruleset{{Permission: "*", Pattern: "*", Action: Deny}}); len(all) != len(tools) {
		t.Errorf("Disabled under *: deny = %v", all)
	}
	if none := Disabled(tools, nil); len(none) != 0 {
		t.Errorf("Disabled without rules = %v", none)
	}
}

func TestArity(t *testing.T) {
	tests := []struct {
		cmd, want string
	}{
		{"touch foo.txt", "touch *"},
		{"ls", "ls *"},
		{"git checkout main", "git checkout *"},
		{"git commit -m x", "git commit *"},
		{"git", "git *"},
		{"git config user.name x", "git config user.name *"},
		{"git remote add origin url", "git remote add *"},
		{"npm install", "npm install *"},
		{"npm run dev", "npm run dev *"},
		{"npm run", "npm run *"},
		{"docker compose up -d", "docker compose up *"},
		{"docker run nginx", "docker run *"},
		{"python script.py", "python script.py *"},
		{"cargo add tokio --features full", "cargo add tokio *"},
		{"go test ./...", "go test *"},
		{"go mod tidy", "go mod tidy *"},
		{"kubectl get pods -A", "kubectl get *"},
		{"aws s3 ls s3://b", "aws s3 ls *"},
		{"gh pr list", "gh pr list *"},
		{"make", "make *"},
		{"unknowntool sub arg", "unknowntool *"},
		{"yarn run build --watch", "yarn run build *"},
	}
	for _, tt := range tests {
		if got := AlwaysPattern(strings.Fields(tt.cmd)); got != tt.want {
			t.Errorf("AlwaysPattern(%q) = %q, want %q", tt.cmd, got, tt.want)
		}
		// The always pattern covers the command it came from.
		if !Match(tt.cmd, AlwaysPattern(strings.Fields(tt.cmd))) {
			t.Errorf("%q does not match its own always pattern", tt.cmd)
		}
	}
	if got := Arity(nil); len(got) != 0 {
		t.Errorf("Arity(nil) = %v", got)
	}
	for key := range arity {
		if n := len(strings.Fields(key)); n > maxArityKey {
			t.Errorf("arity key %q has %d words, more than maxArityKey", key, n)
		}
	}
}

// TestEvaluateFloor checks that floor rules (an untrusted project's) only
// ever make the answer stricter.
func TestEvaluateFloor(t *testing.T) {
	user := Ruleset{{Permission: "*", Pattern: "*", Action: Allow}, {Permission: "bash", Pattern: "*", Action: Ask},
		{Permission: "bash", Pattern: "git status*", Action: Allow}, {Permission: "bash", Pattern: "rm *", Action: Deny}}
	floor := Ruleset{{Permission: "bash", Pattern: "*", Action: Allow, Floor: true},
		{Permission: "bash", Pattern: "git *", Action: Ask, Floor: true},
		{Permission: "read", Pattern: "*.key", Action: Deny, Floor: true}}
	tests := []struct {
		perm, value string
		want        Action
	}{
		{"bash", "ls", Ask},             // the project's allow does not loosen the user's ask
		{"bash", "rm -rf /", Deny},      // nor the user's deny
		{"bash", "git status", Ask},     // the project's ask tightens the user's allow
		{"read", "id.key", Deny},        // the project's deny tightens
		{"read", "main.go", Allow},      // where the project says nothing the user's rule stands
		{"edit", "main.go", Allow},      // likewise
		{"bash", "git push x", Ask},     // both ask
		{"webfetch", "http://x", Allow}, // unrelated
		{"bash", "rm -rf x", Deny},      // user deny and project ask: deny
		{"bash", "git status -s", Ask},  // user allow, project ask
	}
	for _, tt := range tests {
		got, _ := Evaluate(tt.perm, tt.value, user, floor)
		if got.Action != tt.want {
			t.Errorf("Evaluate(%s, %q) = %s (%+v), want %s", tt.perm, tt.value, got.Action, got, tt.want)
		}
	}
	// A floor deny of everything turns a tool off even where the user
	// allows it.
	if d := Disabled([]string{"webfetch", "bash"}, Merge(user, Ruleset{{Permission: "webfetch", Pattern: "*", Action: Deny, Floor: true}})); !d["webfetch"] || d["bash"] {
		t.Errorf("Disabled = %v", d)
	}
}

// TestEvaluateFloorLayers checks that floor rules of different layers (an
// untrusted project's, a client's for its session) are evaluated apart:
// one layer's allow does not hide another layer's ask or deny.
func TestEvaluateFloorLayers(t *testing.T) {
	user := Ruleset{{Permission: "*", Pattern: "*", Action: Allow}}
	project := Ruleset{{Permission: "bash", Pattern: "*", Action: Ask, Floor: true},
		{Permission: "bash", Pattern: "ls*", Action: Allow, Floor: true}}
	session := Ruleset{{Permission: "*", Pattern: "*", Action: Allow, Floor: true, Layer: "session"},
		{Permission: "edit", Pattern: "*.lock", Action: Deny, Floor: true, Layer: "session"}}
	tests := []struct {
		perm, value string
		want        Action
	}{
		{"bash", "make", Ask},      // the session's allow does not hide the project's ask
		{"bash", "ls -l", Allow},   // the project's own last rule allows; nothing tightens
		{"edit", "go.lock", Deny},  // the session's deny tightens
		{"edit", "main.go", Allow}, // the user's allow stands
		{"read", "secret", Allow},  // unrelated
	}
	for _, tt := range tests {
		got, _ := Evaluate(tt.perm, tt.value, Merge(user, project, session))
		if got.Action != tt.want {
			t.Errorf("Evaluate(%s, %q) = %s (%+v), want %s", tt.perm, tt.value, got.Action, got, tt.want)
		}
	}
	// A layer's deny of everything turns a tool off, whatever another
	// layer's last rule says.
	rs := Merge(user, Ruleset{{Permission: "webfetch", Pattern: "*", Action: Deny, Floor: true}},
		Ruleset{{Permission: "webfetch", Pattern: "*", Action: Allow, Floor: true, Layer: "session"}})
	if d := Disabled([]string{"webfetch", "bash"}, rs); !d["webfetch"] || d["bash"] {
		t.Errorf("Disabled = %v", d)
	}
}
