package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/codeloop/codeloop/internal/app"
	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/client/local"
	"github.com/codeloop/codeloop/internal/github"
	"github.com/codeloop/codeloop/internal/sandbox"
)

func newGitHubCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "github",
		Short: "Answer /codeloop in GitHub issues and pull requests from GitHub Actions",
		Long: "Answer /codeloop in GitHub issues and pull requests from a GitHub Actions workflow:\n" +
			"codeloop github install writes the workflow, codeloop github run is its step.\n" +
			"See docs/github.md.",
	}
	cmd.AddCommand(newGitHubInstallCmd(e), newGitHubRunCmd(e))
	return cmd
}

type githubInstallOptions struct {
	provider, secret, model, trigger string
	review, force                    bool
	timeout                          time.Duration
}

func newGitHubInstallCmd(e *env) *cobra.Command {
	var o githubInstallOptions
	cmd := &cobra.Command{
		Use:   "install",
		Short: "Write .github/workflows/codeloop.yml for this repository",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.githubInstall(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.provider, "provider", "anthropic", "the model provider whose key the workflow passes")
	f.StringVar(&o.secret, "secret", "", "the repository secret holding the provider's key (default: the provider's usual variable, e.g. ANTHROPIC_API_KEY)")
	f.StringVarP(&o.model, "model", "m", "", "model to use, as provider/model (default: the config's)")
	f.StringVar(&o.trigger, "trigger", "/codeloop,/cl", "comma-separated words that start a run")
	f.BoolVar(&o.review, "review", false, "also review every pull request opened or updated")
	f.BoolVar(&o.force, "force", false, "replace an existing workflow file")
	f.DurationVar(&o.timeout, "timeout", 30*time.Minute, "how long a run may work")
	return cmd
}

func (e *env) githubInstall(ctx context.Context, o githubInstallOptions) error {
	out, err := exec.CommandContext(ctx, "git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return errors.New("codeloop github install runs inside a git repository")
	}
	root := strings.TrimSpace(string(out))
	secret := o.secret
	if secret == "" {
		secret = github.ProviderSecret(o.provider)
	}
	if !validSecretName(secret) {
		return &exitCodeError{code: exitUsage, err: fmt.Errorf("--secret %q: a secret's name is letters, digits and underscores", secret)}
	}
	words := splitWords(o.trigger)
	if len(words) == 0 {
		return &exitCodeError{code: exitUsage, err: errors.New("--trigger names no word")}
	}
	for _, v := range append([]string{o.model}, words...) {
		if !github.ValidWorkflowText(v) {
			return &exitCodeError{code: exitUsage, err: fmt.Errorf("%q: the model and the trigger words cannot hold a line break or another control character", v)}
		}
	}
	name := filepath.Join(root, ".github", "workflows", "codeloop.yml")
	if _, err := os.Stat(name); err == nil && !o.force {
		return fmt.Errorf("%s exists; --force replaces it", name)
	}
	text := github.Workflow(github.WorkflowOptions{Secret: secret, Model: o.model, Review: o.review, Words: words,
		TimeoutMinutes: int(o.timeout.Round(time.Minute) / time.Minute)})
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		return err
	}
	rel, _ := filepath.Rel(root, name)
	fmt.Fprintf(e.stdout, "Wrote %s.\n\n", rel)
	fmt.Fprintf(e.stdout, "Next:\n")
	fmt.Fprintf(e.stdout, "  1. Add the provider's key as the repository secret %s:\n", secret)
	fmt.Fprintf(e.stdout, "       gh secret set %s\n", secret)
	fmt.Fprintf(e.stdout, "     or on GitHub: Settings → Secrets and variables → Actions → New repository secret.\n")
	fmt.Fprintf(e.stdout, "  2. Commit and push %s to the default branch.\n", rel)
	fmt.Fprintf(e.stdout, "  3. Comment \"%s <what to do>\" on an issue or a pull request.\n", words[0])
	return nil
}

func validSecretName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func splitWords(s string) []string {
	var out []string
	for _, w := range strings.Split(s, ",") {
		if w = strings.TrimSpace(w); w != "" {
			out = append(out, w)
		}
	}
	return out
}

type githubRunOptions struct {
	token, trigger, export, model, agent, sandbox string
	review                                        bool
	timeout                                       time.Duration
	maxSteps                                      int
}

func newGitHubRunCmd(e *env) *cobra.Command {
	var o githubRunOptions
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Do what the GitHub event of this Actions job asks (the workflow's step)",
		Long: "Do what the GitHub event of this Actions job asks: a /codeloop comment on an issue becomes a\n" +
			"branch and a pull request, one on a pull request becomes commits on its branch, and with\n" +
			"--review a pull_request event becomes a review. Only users with write access start a run.\n" +
			"Shell commands run sandboxed with the network off, without the GitHub token or provider keys\n" +
			"in their environment; permission requests are denied. See docs/github.md.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.githubRun(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.token, "token", "", "the GitHub token (default: $INPUT_TOKEN, else $GITHUB_TOKEN)")
	f.StringVar(&o.trigger, "trigger", "", "comma-separated words that start a run (default: $CODELOOP_GITHUB_TRIGGER, else /codeloop,/cl)")
	f.BoolVar(&o.review, "review", false, "answer pull_request events with a review")
	f.DurationVar(&o.timeout, "timeout", 30*time.Minute, "how long the model may work")
	f.IntVar(&o.maxSteps, "max-steps", 100, "how many model steps the run may take (0: no limit)")
	f.StringVar(&o.export, "export", "", "where to write the session as JSON (default: $RUNNER_TEMP/codeloop-session.json; - for nowhere)")
	f.StringVarP(&o.model, "model", "m", "", "model to use, as provider/model")
	f.StringVar(&o.agent, "agent", "", "agent to use")
	f.StringVar(&o.sandbox, "sandbox", "workspace-write", "confine shell commands: workspace-write, read-only or off")
	return cmd
}

func (e *env) githubRun(ctx context.Context, o githubRunOptions) error {
	if _, err := sandbox.ParseMode(o.sandbox); err != nil {
		return &exitCodeError{code: exitUsage, err: fmt.Errorf("--sandbox: %w", err)}
	}
	if o.timeout <= 0 {
		return &exitCodeError{code: exitUsage, err: errors.New("--timeout must be positive")}
	}
	var model *client.ModelRef
	if o.model != "" {
		ref, ok := app.ParseModel(o.model)
		if !ok {
			return &exitCodeError{code: exitUsage, err: fmt.Errorf("--model %q: want provider/model", o.model)}
		}
		model = &client.ModelRef{ProviderID: ref.ProviderID, ModelID: ref.ModelID, Variant: ref.Variant}
	}
	// The commands the model runs inherit this process's environment and
	// can read the one it started with: the credentials leave both, and
	// only codeloop itself reads them.
	getenv, token, err := hideSecrets(e.getenv)
	if err != nil {
		return err
	}
	if o.token == "" {
		o.token = token
	}
	ghEnv, err := github.LoadEnv(getenv, o.token)
	// The engine reads the provider keys but never the job's token.
	appGetenv := func(name string) string {
		if github.RunnerCredential(name) {
			return ""
		}
		return getenv(name)
	}
	if err != nil {
		return err
	}
	trigger := o.trigger
	if trigger == "" {
		trigger = getenv("CODELOOP_GITHUB_TRIGGER")
	}
	if trigger == "" {
		trigger = "/codeloop,/cl"
	}
	words := splitWords(trigger)
	if len(words) == 0 {
		return &exitCodeError{code: exitUsage, err: errors.New("--trigger names no word")}
	}
	dir := ghEnv.Workspace
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return err
		}
	}
	open := func(ctx context.Context, trusted bool) (client.Client, error) {
		a, err := app.Open(context.WithoutCancel(ctx), app.Options{
			Dir: dir, Dirs: e.dirs, Getenv: appGetenv, Log: e.log, Version: Version,
			NonInteractive: true, Sandbox: o.sandbox, NoLSPWarm: true, TrustProject: trusted, DistrustProject: !trusted,
		})
		if err != nil {
			return nil, err
		}
		return &appClient{Client: local.New(a), app: a}, nil
	}
	err = github.Run(ctx, github.Options{
		Env: ghEnv, Trigger: github.TriggerOptions{Words: words, Review: o.review},
		Agent: o.agent, Model: model, Timeout: o.timeout, MaxSteps: o.maxSteps, Export: o.export,
		Open: open, Log: e.stderr,
	})
	if err != nil && ctx.Err() != nil {
		return &exitCodeError{code: interruptedCode(ctx), err: err}
	}
	return err
}

// hideSecrets removes the credentials from the process's environment and
// the --token flag from its arguments (github.KeepSecrets), and returns a
// getenv that still finds them, for codeloop's own use, and the flag's
// value.
func hideSecrets(getenv func(string) string) (func(string) string, string, error) {
	kept, err := github.KeepSecrets("--token")
	if err != nil {
		return nil, "", err
	}
	token := kept["--token"]
	delete(kept, "--token")
	return func(name string) string {
		if v, ok := kept[name]; ok {
			return v
		}
		return getenv(name)
	}, token, nil
}
