package hook

import "testing"

func TestMatcher(t *testing.T) {
	names := Names{MCPServers: []string{"memory", "git hub"}}
	tests := []struct {
		matcher string
		tool    string
		want    bool
	}{
		{"", "bash", true},
		{"*", "read", true},
		{"Bash", "bash", true},
		{"Bash", "read", false},
		{"bash", "bash", true}, // codeloop's own id
		{"Edit|Write", "write", true},
		{"Edit|Write", "edit", true},
		{"Edit, Write", "write", true},
		{"Edit|Write", "apply_patch", false},
		{"Edit.*", "edit", true},
		{"MultiEdit", "edit", true},
		{"Task", "task", true},
		{"Agent", "task", true},
		{"Read", "read", true},
		{"Grep|Glob", "glob", true},
		{"WebFetch", "webfetch", true},
		{"TodoWrite", "todowrite", true},
		{"mcp__memory__.*", "memory_create_entities", true},
		{"mcp__memory__create_entities", "memory_create_entities", true},
		{"mcp__memory__.*", "other_create", false},
		{"mcp__git_hub__list", "git_hub_list", true},
		{"^Bash$", "bash", true},
		{"^Bash$", "bashful", false},
		{"apply_patch", "apply_patch", true},
		{"deploy", "deploy", true}, // a custom tool by its own name
	}
	for _, tt := range tests {
		m, err := compileMatcher(tt.matcher)
		if err != nil {
			t.Fatalf("compile %q: %v", tt.matcher, err)
		}
		if got := m.match(names.candidates(tt.tool)...); got != tt.want {
			t.Errorf("matcher %q on %s (%v) = %v, want %v", tt.matcher, tt.tool, names.candidates(tt.tool), got, tt.want)
		}
	}
}

func TestMatcherRejectsLookbehind(t *testing.T) {
	if _, err := compileMatcher(`(?<=x)Bash`); err == nil {
		t.Fatal("a lookbehind compiled")
	}
}

func TestInputShapes(t *testing.T) {
	tests := []struct{ tool, in, cc string }{
		{"edit", `{"filePath":"/a","oldString":"x","newString":"y","replaceAll":true}`,
			`{"file_path":"/a","new_string":"y","old_string":"x","replace_all":true}`},
		{"read", `{"filePath":"/a","offset":3}`, `{"file_path":"/a","offset":3}`},
		{"bash", `{"command":"ls","description":"d"}`, `{"command":"ls","description":"d"}`},
		{"grep", `{"pattern":"p","include":"*.go"}`, `{"glob":"*.go","pattern":"p"}`},
	}
	for _, tt := range tests {
		if got := string(ccInput(tt.tool, []byte(tt.in))); got != tt.cc {
			t.Errorf("ccInput(%s) = %s, want %s", tt.tool, got, tt.cc)
		}
		back := string(codeloopInput(tt.tool, []byte(tt.cc)))
		if back != string(renameKeys("", []byte(tt.in), 0, 0)) && !sameJSON(t, back, tt.in) {
			t.Errorf("codeloopInput(%s) = %s, want %s", tt.tool, back, tt.in)
		}
	}
}
