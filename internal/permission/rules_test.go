package permission

import (
	"slices"
	"strings"
	"testing"
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

func TestDisabled(t *testing.T) {
	tools := []string{"bash", "edit", "write", "apply_patch", "read", "webfetch", "task", "question"}
	defaults := Ruleset{
		{Permission: "*", Pattern: "*", Action: Allow, Default: true},
		{Permission: "question", Pattern: "*", Action: Deny, Default: true},
	}
	rs := Merge(defaults, Ruleset{
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
