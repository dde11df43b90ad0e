package github

import (
	"fmt"
	"strings"
)

// WorkflowOptions shape the workflow codeloop github install writes.
type WorkflowOptions struct {
	// Secret is the name of the repository secret holding the provider's
	// key (ANTHROPIC_API_KEY); the workflow passes it under the same name.
	Secret string
	// Model is provider/model, empty for the config's default.
	Model string
	// Review adds pull_request events, answered with a review.
	Review bool
	// Words are the trigger words.
	Words []string
	// TimeoutMinutes bounds the job.
	TimeoutMinutes int
}

// ProviderSecret is the usual name of a provider's key variable.
func ProviderSecret(provider string) string {
	switch strings.ToLower(provider) {
	case "", "anthropic":
		return "ANTHROPIC_API_KEY"
	case "openai":
		return "OPENAI_API_KEY"
	case "google", "gemini":
		return "GEMINI_API_KEY"
	case "openrouter":
		return "OPENROUTER_API_KEY"
	case "groq":
		return "GROQ_API_KEY"
	case "mistral":
		return "MISTRAL_API_KEY"
	case "deepseek":
		return "DEEPSEEK_API_KEY"
	case "xai":
		return "XAI_API_KEY"
	}
	return strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(provider)) + "_API_KEY"
}

// Workflow returns the text of .github/workflows/codeloop.yml. It names the
// secret, never a value. The model and the words must not hold a line
// break (ValidWorkflowText).
func Workflow(o WorkflowOptions) string {
	if o.Secret == "" {
		o.Secret = "ANTHROPIC_API_KEY"
	}
	if len(o.Words) == 0 {
		o.Words = []string{"/codeloop", "/cl"}
	}
	if o.TimeoutMinutes <= 0 {
		o.TimeoutMinutes = 30
	}
	var b strings.Builder
	b.WriteString(`# codeloop answers /codeloop in issues and pull requests (docs/github.md).
# Written by codeloop github install; edit as you like.
name: codeloop

on:
  issue_comment:
    types: [created]
  pull_request_review_comment:
    types: [created]
  issues:
    types: [opened, assigned]
`)
	if o.Review {
		b.WriteString("  pull_request:\n    types: [opened, synchronize, reopened, ready_for_review]\n")
	}
	b.WriteString(`
permissions:
  contents: write
  issues: write
  pull-requests: write
  id-token: none

concurrency:
  group: codeloop-${{ github.event.issue.number || github.event.pull_request.number }}
  cancel-in-progress: false

jobs:
  codeloop:
`)
	var comment, issue []string
	for _, w := range o.Words {
		lit := "'" + strings.ReplaceAll(w, "'", "''") + "'"
		comment = append(comment, "contains(github.event.comment.body, "+lit+")")
		issue = append(issue, "contains(github.event.issue.body, "+lit+")", "contains(github.event.issue.title, "+lit+")")
	}
	cond := "(github.event_name != 'issues' && github.event_name != 'pull_request' && (" + strings.Join(comment, " || ") + ")) ||\n" +
		"      (github.event_name == 'issues' && (" + strings.Join(issue, " || ") + "))"
	if o.Review {
		cond += " ||\n      (github.event_name == 'pull_request' && !github.event.pull_request.draft)"
	}
	fmt.Fprintf(&b, "    if: >-\n      %s\n", cond)
	fmt.Fprintf(&b, `    runs-on: ubuntu-latest
    timeout-minutes: %d
    steps:
      - name: Check out the repository
        uses: actions/checkout@v4
        with:
          fetch-depth: 0
          # codeloop pushes with the token itself; the checkout keeps no
          # credential where the model's commands could read it.
          persist-credentials: false

      - name: Install codeloop
        run: |
          curl -fsSL https://github.com/codeloop/codeloop/releases/latest/download/install.sh | sh
          echo "$HOME/.local/bin" >> "$GITHUB_PATH"

      - name: Run codeloop
        env:
          GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}
          %s: ${{ secrets.%s }}
`, o.TimeoutMinutes+5, o.Secret, o.Secret)
	// exec: the step's shell would otherwise stay the parent of every
	// command the model runs, with the credentials in the environment it
	// was started with.
	args := []string{"exec codeloop github run", fmt.Sprintf("--timeout %dm", o.TimeoutMinutes),
		`--export "$RUNNER_TEMP/codeloop-session.json"`}
	if o.Model != "" {
		args = append(args, "--model "+shellQuote(o.Model))
	}
	if o.Review {
		args = append(args, "--review")
	}
	if strings.Join(o.Words, ",") != "/codeloop,/cl" {
		args = append(args, "--trigger "+shellQuote(strings.Join(o.Words, ",")))
	}
	// A literal block: the quoted model and words may hold what a plain
	// YAML value may not (": ", " #").
	fmt.Fprintf(&b, "        run: |\n          %s\n", strings.Join(args, " "))
	b.WriteString(`
      - name: Keep the session
        if: always()
        uses: actions/upload-artifact@v4
        with:
          name: codeloop-session-${{ github.run_id }}
          path: ${{ runner.temp }}/codeloop-session.json
          if-no-files-found: ignore
          retention-days: 14
`)
	return b.String()
}

// ValidWorkflowText reports whether s, a model or a trigger word, can go
// into the workflow's text: it holds no control character.
func ValidWorkflowText(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f })
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
