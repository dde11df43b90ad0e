package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/codeloop/codeloop/internal/fakellm"
	"github.com/codeloop/codeloop/internal/llm"
)

// Codex CLI as a peer. It runs headless with `codex exec --json`, its
// model provider pointed at the fake server's Responses API (the only wire
// it speaks) through an isolated CODEX_HOME, with every command
// auto-approved and unsandboxed, as codeloop's `run --auto` runs them, and
// with the features that reach the network at start (the plugin
// marketplace sync) turned off.

// codexDefaultPrefix is where the README installs Codex CLI with npm.
const codexDefaultPrefix = "~/.cache/codeloop-peers/codex"

// codexModel is a model from Codex's own catalogue whose tools are
// function tools (exec_command, and apply_patch through it), which a
// script can call; Codex's default model works through a JavaScript tool
// instead.
const codexModel = "gpt-5.5"

// newCodexPeer finds the Codex binary: path is the executable, or an npm
// prefix (or package directory) holding it, or "" for codexDefaultPrefix.
func newCodexPeer(path string) (*peer, error) {
	bin, err := findCodex(path)
	if err != nil {
		return nil, err
	}
	exec := func(prompt string) []string {
		return []string{"exec", "-m", codexModel, "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check", "--json", prompt}
	}
	return &peer{
		name:    "codex",
		bin:     bin,
		prepare: prepareCodex,
		warmUp:  exec("say ready"),
		scenarios: map[string]peerScenario{
			"chatty":     codexChatty("chatty", exec),
			"chatty-80k": codexChatty("chatty-80k", exec),
			"edit-and-test": {
				steps: codexEditAndTest,
				args:  exec(editAndTestArgs[len(editAndTestArgs)-1]),
				check: codexEditAndTestCheck,
			},
		},
	}, nil
}

// codexChatty is a chatty scenario for Codex: the same stream, and the
// same count of the words it printed (its JSON lines hold the answer).
func codexChatty(name string, exec func(string) []string) peerScenario {
	sc := scenarioByName(name)
	return peerScenario{steps: sc.steps, args: exec(sc.args[len(sc.args)-1]), check: sc.check}
}

// findCodex resolves the native Codex executable. The npm package's
// `codex` command is a Node.js script that starts it; measuring the
// native binary leaves Node's start-up out of Codex's figures.
func findCodex(path string) (string, error) {
	if path == "" {
		path = codexDefaultPrefix
	}
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		path = filepath.Join(home, rest)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("no Codex CLI at %s (install it with: npm install --prefix %s @openai/codex)", path, codexDefaultPrefix)
	}
	if !fi.IsDir() {
		return path, nil
	}
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	for _, pattern := range []string{
		"node_modules/@openai/codex-" + runtime.GOOS + "-" + arch + "/vendor/*/bin/codex",
		"node_modules/@openai/codex/node_modules/@openai/codex-" + runtime.GOOS + "-" + arch + "/vendor/*/bin/codex",
		"vendor/*/bin/codex",
	} {
		if m, _ := filepath.Glob(filepath.Join(path, pattern)); len(m) > 0 {
			return m[0], nil
		}
	}
	return "", fmt.Errorf("no native Codex binary under %s", path)
}

// prepareCodex writes Codex's configuration into the project's home and
// sets its environment: CODEX_HOME there, and a temporary directory of
// its own (Codex refuses to put its helper commands under the system's).
func prepareCodex(p *project) error {
	codexHome := filepath.Join(p.home, ".codex")
	tmp := filepath.Join(p.cfg.dir, "tmp")
	for _, d := range []string{codexHome, tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(codexConfig(p.modelURL)), 0o644); err != nil {
		return err
	}
	p.extraEnv = append(p.extraEnv, "CODEX_HOME="+codexHome, "TMPDIR="+tmp, "CODELOOP_BENCH_KEY=bench")
	return nil
}

// codexConfig points Codex at the fake server and keeps it off the
// network: no update check, no analytics or feedback upload, no plugin
// sync, no retries.
func codexConfig(modelURL string) string {
	return fmt.Sprintf(`model = %q
model_provider = "fake"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "%s/v1"
wire_api = "responses"
env_key = "CODELOOP_BENCH_KEY"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[feedback]
enabled = false

[features]
plugins = false
remote_plugin = false
`, codexModel, modelURL)
}

// codexPatch is the edit of edit-and-test in Codex's patch format, which
// Codex applies itself when a command runs apply_patch.
const codexPatch = `apply_patch <<'EOF'
*** Begin Patch
*** Update File: greet.sh
@@
 greet() {
-	printf 'helo, %s\n' "$1"
+	printf 'hello, %s\n' "$1"
 }
*** End Patch
EOF
`

// codexEditAndTest is edit-and-test's script with Codex's tools: the same
// four turns, text and usage, reading with cat, editing with apply_patch
// and testing with sh through exec_command.
func codexEditAndTest() []fakellm.Step {
	call := func(id, cmd string) fakellm.Step {
		in, _ := json.Marshal(map[string]string{"cmd": cmd})
		return fakellm.Call(id, "exec_command", string(in))
	}
	finish := func(r llm.FinishReason, in, out int64) fakellm.Step {
		return fakellm.Finish(r, llm.Usage{Input: in, Output: out})
	}
	join := func(parts ...fakellm.Step) fakellm.Step {
		var s fakellm.Step
		for _, p := range parts {
			s = append(s, p...)
		}
		return s
	}
	return []fakellm.Step{
		join(fakellm.Text("t1", "I will read greet.sh first."), call("call_1", "cat greet.sh"), finish(llm.FinishToolCalls, 1200, 20)),
		join(call("call_2", codexPatch), finish(llm.FinishToolCalls, 1400, 30)),
		join(call("call_3", "sh greet_test.sh"), finish(llm.FinishToolCalls, 1500, 20)),
		join(fakellm.Text("t2", "Fixed the typo in greet.sh; the test passes."), finish(llm.FinishStop, 1600, 12)),
	}
}

// codexEditAndTestCheck holds Codex to edit-and-test's check: the file is
// fixed, the test passed and no step failed.
func codexEditAndTestCheck(p *project, ex execution) string {
	b, _ := os.ReadFile(filepath.Join(p.repo, "greet.sh"))
	out := string(ex.stdout)
	switch {
	case !strings.Contains(string(b), "hello,"):
		return "greet.sh was not edited"
	case !strings.Contains(out, `"type":"file_change"`):
		return "the edit was not a patch Codex applied"
	case !strings.Contains(out, `ok greet`):
		return "the test did not pass"
	case strings.Contains(out, `"status":"failed"`):
		return "a step failed"
	}
	return ""
}
