package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// sdkContractDir is where .ci/run installs OpenCode's SDK at the version
// the contract is checked against, with the TypeScript compiler.
const sdkContractDir = "../../.ci/sdkcontract/node_modules"

// typeConflicts are the failures where the SDK's v1 and v2 types disagree
// about one route's answer, so no answer satisfies both: the server
// follows the v2 type, which is what OpenCode's own server sends. Each
// entry is an SDK call and the text its tolerated failures contain.
var typeConflicts = map[string]string{
	// v1's Agent type has the older permission object; v2's, the rule
	// array the server sends.
	"v1 App.agents": ".permission: want an object",
}

// TestServeSDKContract: every method of OpenCode's SDK 1.18.33, v1 and v2
// clients, called once against the real server: no call falls through to
// a 404 or 405, every answer has the fields the SDK's types require, an
// unsupported call answers a 501 UnsupportedError, and session.idle is
// seen on the event stream.
func TestServeSDKContract(t *testing.T) {
	mods := nodeModule(t, sdkContractDir, "run npm ci in .ci/sdkcontract")
	sdk, ts := filepath.Join(mods, "@opencode-ai", "sdk"), filepath.Join(mods, "typescript")
	for _, dir := range []string{sdk, ts} {
		if _, err := os.Stat(dir); err != nil {
			t.Skipf("%s is not installed: run npm ci in .ci/sdkcontract", dir)
		}
	}
	var steps strings.Builder
	for range 60 {
		steps.WriteString("step\ntext Done.\nfinish stop\n")
	}
	p := newProject(t, steps.String(), map[string]string{
		"main.go":       "package main // hello\n",
		"codeloop.json": `{"command": {"greet": {"description": "Greets", "template": "Say hello to $ARGUMENTS"}}}`,
	})
	s := p.serve("--port", "0")
	out := runNode(t, s, "sdkcontract/contract.mjs", 3*time.Minute, "SDK_DIR="+sdk, "TS_DIR="+ts)
	var got struct {
		Report []struct {
			Client, SDK, Route string
			Status             int
			Unsupported        bool
			Failures           []string
		}
		Events      []string
		SessionIdle bool
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("the script's output %q: %v", out, err)
	}
	if len(got.Report) < 250 {
		t.Errorf("the script called %d SDK methods; the SDK has over 250", len(got.Report))
	}
	served, unsupported := 0, 0
	for _, e := range got.Report {
		key := e.Client + " " + e.SDK
		failures := e.Failures
		if conflict, ok := typeConflicts[key]; ok {
			failures = slices.DeleteFunc(slices.Clone(failures), func(f string) bool { return strings.Contains(f, conflict) })
			if len(failures) == len(e.Failures) {
				t.Errorf("%s (%s) no longer fails on %q: remove it from typeConflicts", key, e.Route, conflict)
			}
		}
		if len(failures) > 0 {
			t.Errorf("%s (%s): %d %s", key, e.Route, e.Status, strings.Join(failures, "; "))
		}
		if os.Getenv("SDK_CONTRACT_VERBOSE") != "" {
			t.Logf("%s %s (%s): %d unsupported=%v", e.Client, e.SDK, e.Route, e.Status, e.Unsupported)
		}
		if e.Unsupported {
			unsupported++
		} else {
			served++
		}
	}
	t.Logf("%d SDK calls served, %d answered 501", served, unsupported)
	if !got.SessionIdle {
		t.Errorf("no session.idle event; the stream carried %v", got.Events)
	}
}
