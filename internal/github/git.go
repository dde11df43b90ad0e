package github

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
)

// git runs git in the checkout. Commands run after the model has had the
// working tree run none of the repository's hooks, file-system monitors
// or credential helpers, and the token reaches git through its
// environment (an HTTP header for the server's address only), never
// through arguments or the repository's config.
type git struct {
	dir       string
	server    string // GITHUB_SERVER_URL
	token     string
	env       []string // the process's environment, secrets removed
	committer string
	email     string
}

// safe are config overrides on every command: nothing the working tree
// holds runs.
func safeConfig() []string {
	return []string{
		"-c", "core.hooksPath=/dev/null",
		"-c", "core.fsmonitor=false",
		"-c", "credential.helper=",
		"-c", "protocol.ext.allow=never",
		"-c", "commit.gpgsign=false",
	}
}

func (g *git) command(ctx context.Context, auth bool, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", append(safeConfig(), args...)...)
	cmd.Dir = g.dir
	env := append([]string{}, g.env...)
	env = append(env, "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=")
	if auth && g.token != "" {
		cred := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + g.token))
		env = append(env, "GIT_CONFIG_COUNT=1",
			"GIT_CONFIG_KEY_0=http."+strings.TrimRight(g.server, "/")+"/.extraheader",
			"GIT_CONFIG_VALUE_0=AUTHORIZATION: basic "+cred)
	}
	cmd.Env = env
	return cmd
}

// run runs git and returns its standard output; the error holds the first
// line of its standard error, without the token.
func (g *git) run(ctx context.Context, args ...string) (string, error) {
	return g.exec(ctx, false, args...)
}

// remote runs a git command that reaches the server.
func (g *git) remote(ctx context.Context, args ...string) (string, error) {
	return g.exec(ctx, true, args...)
}

func (g *git) exec(ctx context.Context, auth bool, args ...string) (string, error) {
	cmd := g.command(ctx, auth, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := lastLine(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return out.String(), fmt.Errorf("git %s: %s", args[0], redact(msg, g.token))
	}
	return out.String(), nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return ""
}

// originURL returns origin's address.
func (g *git) originURL(ctx context.Context) (string, error) {
	u, err := g.run(ctx, "remote", "get-url", "origin")
	if err != nil {
		return "", fmt.Errorf("the checkout has no origin: %w", err)
	}
	return strings.TrimSpace(u), nil
}

// head returns the commit checked out.
func (g *git) head(ctx context.Context) (string, error) {
	out, err := g.run(ctx, "rev-parse", "HEAD")
	return strings.TrimSpace(out), err
}

// dirty reports whether the working tree differs from HEAD, counting new
// files that are not ignored.
func (g *git) dirty(ctx context.Context) (bool, error) {
	out, err := g.run(ctx, "status", "--porcelain", "--untracked-files=all")
	return strings.TrimSpace(out) != "", err
}

// commitAll commits every change of the working tree and reports whether
// there was one.
func (g *git) commitAll(ctx context.Context, msg string) (bool, error) {
	if _, err := g.run(ctx, "add", "--all"); err != nil {
		return false, err
	}
	if _, err := g.run(ctx, "diff", "--cached", "--quiet"); err == nil {
		return false, nil
	}
	_, err := g.run(ctx, "-c", "user.name="+g.committer, "-c", "user.email="+g.email,
		"commit", "--no-verify", "--quiet", "-m", msg)
	return err == nil, err
}

// push pushes HEAD to branch at the address origin had before the model
// ran; the refspec names the one branch the run may write.
func (g *git) push(ctx context.Context, origin, branch string) error {
	_, err := g.remote(ctx, "push", "--no-verify", "--quiet", origin, "HEAD:refs/heads/"+branch)
	return err
}

// deleteBranch removes a branch the run pushed.
func (g *git) deleteBranch(ctx context.Context, origin, branch string) error {
	_, err := g.remote(ctx, "push", "--no-verify", "--quiet", origin, ":refs/heads/"+branch)
	return err
}

// fetch fetches ref from origin and returns the commit it names.
func (g *git) fetch(ctx context.Context, origin, ref string) (string, error) {
	if _, err := g.remote(ctx, "fetch", "--quiet", "--no-tags", origin, ref); err != nil {
		return "", err
	}
	out, err := g.run(ctx, "rev-parse", "FETCH_HEAD")
	return strings.TrimSpace(out), err
}

// diff returns the working tree's changes against base, new files
// included, as a unified diff.
func (g *git) diff(ctx context.Context, base string) (string, error) {
	if _, err := g.run(ctx, "add", "--all", "--intent-to-add"); err != nil {
		return "", err
	}
	return g.run(ctx, "diff", "--no-color", "--no-ext-diff", base)
}

// branchName makes codeloop/issue-N-<slug> from an issue's title.
func branchName(number int, title string) string {
	slug := strings.Trim(nonSlug().ReplaceAllString(strings.ToLower(title), "-"), "-")
	if len(slug) > 40 {
		cut := slug[:40]
		if slug[40] != '-' {
			if i := strings.LastIndexByte(cut, '-'); i > 0 {
				cut = cut[:i]
			}
		}
		slug = strings.TrimRight(cut, "-")
	}
	if slug == "" {
		return fmt.Sprintf("codeloop/issue-%d", number)
	}
	return fmt.Sprintf("codeloop/issue-%d-%s", number, slug)
}

func nonSlug() *regexp.Regexp { return regexp.MustCompile(`[^a-z0-9]+`) }

// processEnv is the process's environment without the secrets.
func processEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !IsSecret(name) {
			out = append(out, kv)
		}
	}
	return out
}
