package tool

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/codeloop/codeloop/internal/permission"
)

// DefaultSecretFiles returns the patterns of the files whose contents no
// tool reads, greps or attaches without the user's approval: environment
// files (but their examples), keys and certificates, package registry and
// netrc credentials, and Terraform state. A pattern starting with "!"
// exempts the files it matches; the last pattern matching a file decides.
func DefaultSecretFiles() []string {
	return []string{
		".env*", "!.env.example", "!.env.sample", "!.env.template",
		"*.pem", "*.key",
		"id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*",
		".npmrc", ".pypirc", ".netrc",
		"*.tfstate", "*.tfstate.backup",
	}
}

// SecretPatterns returns the secret file patterns in force: the defaults,
// then the user's config entries, then the project's. The user's entries
// may exempt files with "!pattern" (a "!.env*" entry undoes the default
// ".env*"); a project may only add patterns, so its "!" entries are left
// out. user are the secret_files entries of the user's own config layers
// (global files, CODELOOP_CONFIG, ~/.codeloop, the config environment
// variables), project those of the files found in the project.
func SecretPatterns(user, project []string) []string {
	out := DefaultSecretFiles()
	for _, p := range user {
		if p = strings.TrimSpace(p); p != "" && p != "!" {
			out = append(out, p)
		}
	}
	for _, p := range project {
		if p = strings.TrimSpace(p); p != "" && !strings.HasPrefix(p, "!") {
			out = append(out, p)
		}
	}
	return out
}

// SecretFiles tells which files are secret. The zero value and nil know
// no patterns; Env.Secrets nil means the defaults.
type SecretFiles struct {
	patterns []string
}

// NewSecretFiles returns a matcher of patterns (see SecretPatterns), in
// doublestar syntax, each matched against a file's path relative to the
// project and against its base name. Invalid patterns are left out and
// reported in the error; the matcher is usable either way.
func NewSecretFiles(patterns []string) (*SecretFiles, error) {
	s := &SecretFiles{}
	var bad []string
	for _, p := range patterns {
		pat := strings.TrimPrefix(strings.TrimPrefix(p, "!"), "/")
		if pat == "" || !doublestar.ValidatePattern(pat) {
			bad = append(bad, p)
			continue
		}
		s.patterns = append(s.patterns, p)
	}
	if len(bad) > 0 {
		return s, fmt.Errorf("secret_files: invalid patterns left out: %s", strings.Join(bad, ", "))
	}
	return s, nil
}

// Match reports whether the file at path (absolute) is secret in the
// project rooted at root, and the pattern that decides it. A symbolic link
// is secret when it or the file it leads to is.
func (s *SecretFiles) Match(root, path string) (string, bool) {
	if s == nil || len(s.patterns) == 0 {
		return "", false
	}
	if p, ok := s.match(root, path); ok {
		return p, true
	}
	if st, err := os.Lstat(path); err != nil || st.Mode()&os.ModeSymlink == 0 {
		return "", false
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil || real == path {
		return "", false
	}
	if rroot, err := filepath.EvalSymlinks(root); err == nil {
		root = rroot
	}
	return s.match(root, real)
}

// match is Match without following symbolic links. The last pattern that
// matches decides; a pattern without a slash is matched against the base
// name only, which is all it can match.
func (s *SecretFiles) match(root, path string) (string, bool) {
	base := filepath.Base(path)
	rel, relDone := "", false
	for i := len(s.patterns) - 1; i >= 0; i-- {
		p := s.patterns[i]
		pat := strings.TrimPrefix(strings.TrimPrefix(p, "!"), "/")
		ok := doublestar.MatchUnvalidated(pat, base)
		if !ok && strings.Contains(pat, "/") {
			if !relDone {
				rel, relDone = relTo(root, path), true
			}
			ok = rel != "" && doublestar.MatchUnvalidated(pat, rel)
		}
		if ok {
			if strings.HasPrefix(p, "!") {
				return "", false
			}
			return p, true
		}
	}
	return "", false
}

// relTo is path relative to root, slash-separated, or "" when it is not
// below root.
func relTo(root, path string) string {
	if root == "" {
		return ""
	}
	r, err := filepath.Rel(root, path)
	if err != nil || r == "." || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return ""
	}
	return filepath.ToSlash(r)
}

// nameGlobs returns globs that match the base name of every secret file
// (and of others): the last part of each pattern that is not an exemption.
// ok is false when no such list exists, a pattern ending in "**".
func (s *SecretFiles) nameGlobs() (globs []string, ok bool) {
	if s == nil {
		return nil, true
	}
	for _, p := range s.patterns {
		if strings.HasPrefix(p, "!") {
			continue
		}
		last := p[strings.LastIndexByte(p, '/')+1:]
		if strings.Contains(last, "**") || last == "" || strings.ContainsAny(p, "{\\") && strings.Contains(p, "/") {
			return nil, false
		}
		globs = append(globs, last)
	}
	return globs, true
}

// secrets is env.Secrets, or the default patterns when it is nil.
func (env Env) secrets() *SecretFiles {
	if env.Secrets != nil {
		return env.Secrets
	}
	s, _ := NewSecretFiles(DefaultSecretFiles())
	return s
}

// projectRoot is the root secret file patterns are matched from.
func projectRoot(call *Call) string {
	if call.Worktree != "" {
		return call.Worktree
	}
	return baseDir(call)
}

// secretFile reports whether path is a secret file for the call, and the
// pattern that makes it one. Directories are never secret.
func secretFile(env Env, call *Call, path string) (string, bool) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return "", false
	}
	return env.secrets().Match(projectRoot(call), path)
}

// secretReason says why a file's content is kept from the model.
func secretReason(rel, pattern string) string {
	return fmt.Sprintf("%s is a secret file (it matches the secret_files pattern %q), whose content is sent to the model only with the user's approval", rel, pattern)
}

// askSecretEdit asks, as a protected edit request, to change path when it
// is a secret file, and reports whether it was one. The request carries no
// diff: computing one reads the file.
func askSecretEdit(ctx context.Context, env Env, call *Call, path string) (bool, error) {
	pattern, ok := secretFile(env, call, path)
	if !ok {
		return false, nil
	}
	rel := relPath(call, path)
	return true, call.Ask(ctx, permission.Request{
		Permission: "edit",
		Patterns:   []string{rel},
		Protected:  true,
		Reason:     secretReason(rel, pattern),
		Metadata:   map[string]any{"filepath": path, "secret": pattern},
	})
}
