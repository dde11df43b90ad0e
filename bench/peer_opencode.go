package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// configPeer is another coding agent measured on the same scenarios, with the
// same project, config and fake model servers: OpenCode reads the same
// opencode.json and takes the same `run --auto --format json` command.
type configPeer struct {
	name string
	bin  string
	// env is what the peer needs beyond the project's environment to run
	// offline.
	env []string
}

// openCodeVersion is the OpenCode release the CI installs (see .ci/run).
const openCodeVersion = "1.18.33"

// parseConfigPeer reads -opencode: the binary's path, or "auto" for the
// one .ci/run installs. It returns nil and a reason when the binary is
// absent, so that the peer is skipped.
func parseConfigPeer(bin string) (*configPeer, string, error) {
	const name = "opencode"
	if bin == "" {
		return nil, "", nil
	}
	if bin == "auto" {
		bin = ""
	}
	if bin == "" {
		bin = defaultOpenCode()
	}
	if bin == "" {
		return nil, "no OpenCode binary for " + runtime.GOOS + "/" + runtime.GOARCH, nil
	}
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Sprintf("OpenCode is not installed at %s (run .ci/run, or pass -opencode PATH)", bin), nil
	}
	abs, err := filepath.Abs(bin)
	if err != nil {
		return nil, "", err
	}
	return &configPeer{name: name, bin: abs, env: []string{
		// No update check, no models.dev catalogue, no share, no plugins
		// or skills from the network or from other agents' directories:
		// the config's own provider is the only one.
		"OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_DISABLE_MODELS_FETCH=1",
		"OPENCODE_DISABLE_SHARE=1",
		"OPENCODE_DISABLE_DEFAULT_PLUGINS=1",
		"OPENCODE_DISABLE_CLAUDE_CODE=1",
		"OPENCODE_DISABLE_EXTERNAL_SKILLS=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1",
	}}, "", nil
}

// defaultOpenCode is where .ci/run installs OpenCode's platform binary, or
// "" on a platform it has none for.
func defaultOpenCode() string {
	cpu := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	cache, err := os.UserCacheDir()
	if err != nil || cpu == "" || runtime.GOOS != "linux" {
		return ""
	}
	return filepath.Join(cache, "codeloop-ci", "opencode-"+openCodeVersion, "node_modules", "opencode-linux-"+cpu, "bin", "opencode")
}

// runsPeer says whether a peer can run sc: it needs a project and a model,
// and no setup, which drives codeloop's own commands.
func (sc *scenario) runsPeer() bool { return sc.args != nil && sc.setup == nil }

// costRatio compares codeloop's weighted input cost with the peer's on one
// scenario: the ratio of the medians.
func costRatio(scenario, name string, own, theirs []result) string {
	cost := func(rs []result) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = r.inputCost
		}
		return median(v)
	}
	a, b := cost(own), cost(theirs)
	if b == 0 {
		return fmt.Sprintf("%s: %s reported no input tokens", scenario, name)
	}
	return fmt.Sprintf("%s: codeloop's input cost is %.2f× %s's (%.1fk against %.1fk tokens, medians)", scenario, a/b, name, a/1e3, b/1e3)
}
