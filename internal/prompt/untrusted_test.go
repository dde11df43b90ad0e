package prompt

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/tool"
)

// TestUntrustedStaysInProject checks that an untrusted project's
// instruction files reach no file outside the project, through a
// CLAUDE.md import or a symbolic link, while the same files of a trusted
// project, and the project's own imports, apply.
func TestUntrustedStaysInProject(t *testing.T) {
	mk := func(t *testing.T, p, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name       string
		setup      func(t *testing.T, proj, home string)
		untrusted  bool
		want, deny []string
	}{
		{"imports of an untrusted project", func(t *testing.T, proj, home string) {
			mk(t, filepath.Join(home, "secret.md"), "HOME-SECRET")
			mk(t, filepath.Join(proj, "docs", "own.md"), "OWN-IMPORT\n@../../home/secret.md")
			mk(t, filepath.Join(proj, "CLAUDE.md"), "RULES\n@~/secret.md\n@docs/own.md\n")
		}, true, []string{"RULES", "OWN-IMPORT"}, []string{"HOME-SECRET"}},
		{"imports of a trusted project", func(t *testing.T, proj, home string) {
			mk(t, filepath.Join(home, "secret.md"), "HOME-SECRET")
			mk(t, filepath.Join(proj, "CLAUDE.md"), "RULES\n@~/secret.md\n")
		}, false, []string{"RULES", "HOME-SECRET"}, nil},
		{"a link out of an untrusted project", func(t *testing.T, proj, home string) {
			mk(t, filepath.Join(home, "agents.md"), "HOME-AGENTS")
			if err := os.Symlink(filepath.Join(home, "agents.md"), filepath.Join(proj, "AGENTS.md")); err != nil {
				t.Fatal(err)
			}
		}, true, nil, []string{"HOME-AGENTS"}},
		{"a link inside an untrusted project", func(t *testing.T, proj, home string) {
			mk(t, filepath.Join(proj, "docs", "agents.md"), "OWN-AGENTS")
			if err := os.Symlink(filepath.Join("docs", "agents.md"), filepath.Join(proj, "AGENTS.md")); err != nil {
				t.Fatal(err)
			}
		}, true, []string{"OWN-AGENTS"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			proj, home := filepath.Join(root, "proj"), filepath.Join(root, "home")
			if err := os.MkdirAll(proj, 0o755); err != nil {
				t.Fatal(err)
			}
			tt.setup(t, proj, home)
			b := NewBuilder(Options{Dir: proj, Worktree: proj, Home: home, Untrusted: tt.untrusted})
			ins, err := b.Instructions(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var all strings.Builder
			for _, in := range ins {
				all.WriteString(in.Content)
			}
			for _, w := range tt.want {
				if !strings.Contains(all.String(), w) {
					t.Errorf("instructions lack %q:\n%s", w, all.String())
				}
			}
			for _, d := range tt.deny {
				if strings.Contains(all.String(), d) {
					t.Errorf("instructions hold %q from outside the project:\n%s", d, all.String())
				}
			}
		})
	}
}

// TestImportsSkipSecretFiles checks that a CLAUDE.md imports no secret
// file, in the project or out of it, while its other imports apply.
func TestImportsSkipSecretFiles(t *testing.T) {
	root := t.TempDir()
	proj, home := filepath.Join(root, "proj"), filepath.Join(root, "home")
	for p, text := range map[string]string{
		filepath.Join(proj, ".env"):           "PROJECT-ENV",
		filepath.Join(proj, "docs", "a.md"):   "OWN-IMPORT",
		filepath.Join(home, ".ssh", "id_rsa"): "SSH-KEY",
		filepath.Join(proj, "CLAUDE.md"):      "RULES\n@.env\n@~/.ssh/id_rsa\n@docs/a.md\n",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	secrets, err := tool.NewSecretFiles(tool.SecretPatterns(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	ins, err := NewBuilder(Options{Dir: proj, Worktree: proj, Home: home, Secrets: secrets}).Instructions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, in := range ins {
		all.WriteString(in.Content + "\n")
	}
	for _, w := range []string{"RULES", "OWN-IMPORT"} {
		if !strings.Contains(all.String(), w) {
			t.Errorf("instructions lack %q:\n%s", w, all.String())
		}
	}
	for _, d := range []string{"PROJECT-ENV", "SSH-KEY"} {
		if strings.Contains(all.String(), d) {
			t.Errorf("instructions hold the secret %q:\n%s", d, all.String())
		}
	}
}
