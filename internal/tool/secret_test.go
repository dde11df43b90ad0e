package tool

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/approval"
	"github.com/codeloop/codeloop/internal/permission"
)

func TestSecretPatterns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		user, project []string
		secret        []string
		plain         []string
	}{
		{
			name:   "defaults",
			secret: []string{".env", ".env.local", "sub/.env.production", "certs/server.pem", "tls.key", "id_rsa", ".ssh/id_ed25519", "id_ecdsa", ".npmrc", ".pypirc", ".netrc", "infra/terraform.tfstate", "terraform.tfstate.backup"},
			plain:  []string{".env.example", "sub/.env.sample", ".env.template", "main.go", "environment.go", "keys.go", "README.md"},
		},
		{
			name:   "the user adds and exempts",
			user:   []string{"config/secrets.yml", "!.env.local", "!*.pem"},
			secret: []string{".env", "config/secrets.yml", "tls.key"},
			plain:  []string{".env.local", "server.pem", "secrets.yml", "other/config/secrets.yml"},
		},
		{
			name:   "the user undoes a default",
			user:   []string{"!.env*"},
			secret: []string{"id_rsa"},
			plain:  []string{".env", "a/.env.local"},
		},
		{
			name:    "a project only adds",
			project: []string{"!.env*", "!*.pem", "**/credentials.json", "", "  "},
			secret:  []string{".env", "server.pem", "credentials.json", "deep/dir/credentials.json"},
			plain:   []string{".env.example", "main.go"},
		},
	}
	root := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewSecretFiles(SecretPatterns(tt.user, tt.project))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range tt.secret {
				if _, ok := s.Match(root, filepath.Join(root, f)); !ok {
					t.Errorf("%s is not secret", f)
				}
			}
			for _, f := range tt.plain {
				if p, ok := s.Match(root, filepath.Join(root, f)); ok {
					t.Errorf("%s is secret by %q", f, p)
				}
			}
		})
	}
	if _, err := NewSecretFiles([]string{"[", ".env"}); err == nil || !strings.Contains(err.Error(), "[") {
		t.Errorf("invalid pattern: %v", err)
	}
}

func TestSecretSymlink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{".env": "SECRET=xyz\n"})
	if err := os.Symlink(".env", filepath.Join(dir, "notes.txt")); err != nil {
		t.Skip(err)
	}
	if _, ok := (Env{}).secrets().Match(dir, filepath.Join(dir, "notes.txt")); !ok {
		t.Fatal("a link to .env is not secret")
	}
}

func TestReadSecret(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{".env": "SECRET=xyz\n", ".env.example": "SECRET=changeme\n", "sub/server.pem": "xyz\n"})
	tests := []struct {
		name    string
		file    string
		opts    approval.Options
		rules   permission.Ruleset
		reply   permission.ReplyKind
		nilAsk  bool
		wantErr string // "" means the content is returned
		asked   bool   // a protected request was made
	}{
		{name: "approved once", file: ".env", rules: allowAll, reply: permission.ReplyOnce, asked: true},
		{name: "rejected", file: ".env", rules: allowAll, reply: permission.ReplyReject, wantErr: "rejected", asked: true},
		{name: "always approves this read", file: "sub/server.pem", rules: allowAll, reply: permission.ReplyAlways, asked: true},
		{name: "auto non-interactive", file: ".env", rules: allowAll,
			opts: approval.Options{AutoApprove: true, NonInteractive: true}, wantErr: "secret file", asked: true},
		{name: "deny rule", file: ".env", rules: append(append(permission.Ruleset{}, allowAll...), permission.Rule{Permission: "read", Pattern: ".env", Action: permission.Deny}),
			opts: approval.Options{AutoApprove: true}, wantErr: "denied", asked: true},
		{name: "nobody to ask", file: ".env", nilAsk: true, wantErr: "secret file"},
		{name: "exempt example", file: ".env.example", rules: allowAll, opts: approval.Options{AutoApprove: true, NonInteractive: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := newUserAsker(t, tt.opts, tt.rules, tt.reply)
			call := callWith(t, "read", dir, map[string]any{"filePath": filepath.Join(dir, tt.file)}, u)
			if tt.nilAsk {
				call.Asker = nil
			}
			res, err := toolByID(t, testEnv(t), "read").Run(context.Background(), call)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one with %q", err, tt.wantErr)
				}
				if res != nil && strings.Contains(res.Output, "xyz") {
					t.Fatal("the content was returned")
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if want, _ := os.ReadFile(filepath.Join(dir, tt.file)); !strings.Contains(res.Output, strings.TrimSpace(string(want))) {
					t.Fatalf("output %q lacks the content", res.Output)
				}
			}
			protected := 0
			for _, r := range u.seen() {
				if r.Protected {
					protected++
					if r.Permission != "read" || len(r.Always) != 0 || !strings.Contains(r.Reason, filepath.ToSlash(tt.file)) {
						t.Errorf("request %+v", r)
					}
				}
			}
			if (protected == 1) != tt.asked {
				t.Errorf("protected asks = %d, want asked %v", protected, tt.asked)
			}
		})
	}
}

func TestGrepSecret(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".env":          "SECRET=xyz\n",
		".env.example":  "SECRET=xyz-example\n",
		"keys/id_rsa":   "xyz key\n",
		"main.go":       "package main // xyz\n",
		"sub/.env.prod": "nothing here\n",
	})
	engines := map[string]string{"go": "-"}
	if rg, err := exec.LookPath("rg"); err == nil {
		engines["ripgrep"] = rg
	} else if os.Getenv("CI") != "" {
		t.Fatal("ripgrep is not installed")
	}
	tests := []struct {
		name, pattern, path, include string
		matches                      []string // files whose lines are shown
		skipped                      int
	}{
		{name: "tree", pattern: "xyz", matches: []string{"main.go", ".env.example"}, skipped: 3},
		{name: "no match elsewhere", pattern: "SECRET=xyz$", skipped: 3},
		{name: "include", pattern: "xyz", include: "*.go", matches: []string{"main.go"}},
		{name: "include secret names", pattern: "xyz", include: ".env*", matches: []string{".env.example"}, skipped: 2},
		{name: "the file itself", pattern: "xyz", path: ".env", skipped: 1},
		{name: "a directory", pattern: "xyz", path: "keys", skipped: 1},
	}
	for engine, rg := range engines {
		for _, tt := range tests {
			t.Run(engine+"/"+tt.name, func(t *testing.T) {
				env := testEnv(t)
				env.Ripgrep = rg
				in := map[string]any{"pattern": tt.pattern, "include": tt.include}
				if tt.path != "" {
					in["path"] = filepath.Join(dir, tt.path)
				}
				res, err := run(t, env, "grep", dir, in)
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(res.Output, "SECRET=xyz\n") || strings.Contains(res.Output, "xyz key") ||
					strings.Contains(res.Output, filepath.Join(dir, ".env")+":") {
					t.Fatalf("a secret file's line is shown:\n%s", res.Output)
				}
				for _, m := range tt.matches {
					if !strings.Contains(res.Output, filepath.Join(dir, m)+":") {
						t.Errorf("%s not shown:\n%s", m, res.Output)
					}
				}
				if got := res.Metadata["matches"]; got != len(tt.matches) {
					t.Errorf("matches = %v, want %d", got, len(tt.matches))
				}
				if got := res.Metadata["secretSkipped"]; got != tt.skipped {
					t.Errorf("secretSkipped = %v, want %d\n%s", got, tt.skipped, res.Output)
				}
				if note := "secret file"; (tt.skipped > 0) != strings.Contains(res.Output, note) {
					t.Errorf("output and the skipped note disagree:\n%s", res.Output)
				}
			})
		}
	}
}

func TestGlobListsSecrets(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"id_rsa": "SECRET=xyz\n", "a/server.pem": "xyz\n", "main.go": "package main\n"})
	res, err := run(t, testEnv(t), "glob", dir, map[string]any{"pattern": "**/*"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"id_rsa", "a/server.pem", "main.go"} {
		if !strings.Contains(res.Output, filepath.Join(dir, f)) {
			t.Errorf("%s not listed:\n%s", f, res.Output)
		}
	}
	if strings.Contains(res.Output, "xyz") {
		t.Errorf("content in the listing:\n%s", res.Output)
	}
}

// TestEditSecret: a change to a secret file is asked about before the file
// is read, so a failing edit tells nothing of its content.
func TestEditSecret(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, tool string
		input      map[string]any
	}{
		{"edit that would not match", "edit", map[string]any{"oldString": "SECRET=abc", "newString": "x"}},
		{"edit that would match", "edit", map[string]any{"oldString": "SECRET=xyz", "newString": "x"}},
		{"write", "write", map[string]any{"content": "x\n"}},
		{"apply_patch", "apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Update File: .env\n@@\n-SECRET=abc\n+x\n*** End Patch"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{".env": "SECRET=xyz\n"})
			if tt.tool != "apply_patch" {
				tt.input["filePath"] = filepath.Join(dir, ".env")
			}
			u := newUserAsker(t, approval.Options{AutoApprove: true, NonInteractive: true}, allowAll, "")
			_, err := toolByID(t, testEnv(t), tt.tool).Run(context.Background(), callWith(t, tt.tool, dir, tt.input, u))
			if err == nil || !strings.Contains(err.Error(), "secret file") {
				t.Fatalf("err = %v, want a refusal naming the secret file", err)
			}
			if got := readFile(t, filepath.Join(dir, ".env")); got != "SECRET=xyz\n" {
				t.Fatalf(".env = %q", got)
			}
		})
	}
	// Approved once, the edit happens with a single question.
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{".env": "SECRET=xyz\n"})
	u := newUserAsker(t, approval.Options{}, allowAll, permission.ReplyOnce)
	in := map[string]any{"filePath": filepath.Join(dir, ".env"), "oldString": "xyz", "newString": "new"}
	if _, err := toolByID(t, testEnv(t), "edit").Run(context.Background(), callWith(t, "edit", dir, in, u)); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(dir, ".env")); got != "SECRET=new\n" {
		t.Fatalf(".env = %q", got)
	}
	if n := len(u.seen()); n != 1 {
		t.Errorf("%d requests, want 1: %+v", n, u.seen())
	}
}
