package tool

import (
	"encoding/json"
	"slices"
	"testing"
)

func ids(tools []Tool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.ID())
	}
	return out
}

func TestRegistryLookup(t *testing.T) {
	t.Parallel()
	r := NewRegistry(Builtins(testEnv(t))...)
	tests := []struct {
		name, want string
		ok         bool
	}{
		{"read", "read", true},
		{"Read", "read", true},
		{"TODOWRITE", "todowrite", true},
		{"apply_patch", "apply_patch", true},
		{"nonexistent", "invalid", false},
		{"", "invalid", false},
	}
	for _, tt := range tests {
		got, ok := r.Lookup(tt.name)
		if ok != tt.ok || got == nil || got.ID() != tt.want {
			t.Errorf("Lookup(%q) = %v, %v; want %s, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
	var in map[string]string
	if err := json.Unmarshal(InvalidInput("nonexistent", "unknown tool"), &in); err != nil || in["tool"] != "nonexistent" || in["error"] != "unknown tool" {
		t.Errorf("InvalidInput = %v, %v", in, err)
	}
}

func TestRegistryFor(t *testing.T) {
	t.Parallel()
	r := NewRegistry(Builtins(testEnv(t))...)
	tests := []struct {
		model    string
		disabled []string
		want     []string
	}{
		{"claude-sonnet-4-5", nil, []string{"bash", "edit", "glob", "grep", "invalid", "question", "read", "todowrite", "webfetch", "write"}},
		{"gpt-5-codex", nil, []string{"apply_patch", "bash", "glob", "grep", "invalid", "question", "read", "todowrite", "webfetch"}},
		{"gpt-4.1", nil, []string{"bash", "edit", "glob", "grep", "invalid", "question", "read", "todowrite", "webfetch", "write"}},
		{"openai/gpt-oss-120b", nil, []string{"bash", "edit", "glob", "grep", "invalid", "question", "read", "todowrite", "webfetch", "write"}},
		{"claude-opus-4", []string{"question", "bash", "invalid"}, []string{"edit", "glob", "grep", "invalid", "read", "todowrite", "webfetch", "write"}},
	}
	for _, tt := range tests {
		got := ids(r.For(Filter{Model: tt.model, Disabled: func(id string) bool { return slices.Contains(tt.disabled, id) }}))
		if !slices.Equal(got, tt.want) {
			t.Errorf("For(%s, disabled %v) = %v, want %v", tt.model, tt.disabled, got, tt.want)
		}
	}
}

func TestPermissionOf(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]string{"edit": "edit", "write": "edit", "apply_patch": "edit", "bash": "bash", "read": "read"} {
		if got := PermissionOf(id); got != want {
			t.Errorf("PermissionOf(%s) = %s, want %s", id, got, want)
		}
	}
}

func TestRegistryLaterReplaces(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	a, b := newRead(env), newRead(env)
	r := NewRegistry(a, newGlob(env), b)
	if got := ids(r.Tools()); !slices.Equal(got, []string{"glob", "read"}) {
		t.Fatalf("tools %v", got)
	}
	if got, _ := r.Lookup("read"); got != b {
		t.Error("the later read did not replace the earlier one")
	}
}
