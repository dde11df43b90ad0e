package prompt

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCursorRules reads a project's .cursorrules when it has no other
// instruction file, and prefers AGENTS.md when it has both.
func TestCursorRules(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string // the instruction file used, relative to the repo
	}{
		{"cursor rules alone", map[string]string{".cursorrules": "Use tabs."}, ".cursorrules"},
		{"agents wins", map[string]string{".cursorrules": "Use tabs.", "AGENTS.md": "Use spaces."}, "AGENTS.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			repo := filepath.Join(root, "repo")
			if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			for name, body := range tt.files {
				if err := os.WriteFile(filepath.Join(repo, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			b := NewBuilder(Options{Dir: repo, Worktree: repo, Home: filepath.Join(root, "home")})
			ins, err := b.Instructions(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, in := range ins {
				got = append(got, strings.TrimPrefix(in.Source, repo+string(filepath.Separator)))
			}
			if len(got) != 1 || got[0] != tt.want {
				t.Fatalf("instruction files %v, want [%s]", got, tt.want)
			}
		})
	}
}
