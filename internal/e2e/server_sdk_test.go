package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

// sdkPath is OpenCode's SDK as .ci/run installs it.
const sdkPath = "../../.ci/npm/node_modules/@opencode-ai/sdk/dist/index.js"

// TestServeOpenCodeSDK: OpenCode's own client creates a session, sends a
// prompt, reads the streamed events, answers the permission request and
// reads the messages, against the real server.
func TestServeOpenCodeSDK(t *testing.T) {
	sdk := nodeModule(t, sdkPath, "run npm ci in .ci/npm")
	p := newProject(t, bashScriptFor("call_1", "echo hi > out.txt", "Wrote out.txt."),
		map[string]string{"codeloop.json": `{"permission": {"bash": "ask"}}`})
	s := p.serve("--port", "0")
	out := runNode(t, s, "opencode_sdk.mjs", time.Minute, "SDK_PATH=file://"+sdk)
	var got struct {
		Session    *string
		Types      []string
		Streamed   string
		Permission *struct {
			Permission string
			Patterns   []string
		}
		Messages []struct {
			Role  string
			Parts []string
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("the script's output %q: %v", out, err)
	}
	if got.Session == nil || *got.Session != "from the SDK" {
		t.Errorf("session %v", got.Session)
	}
	for _, want := range []string{"server.connected", "message.updated", "message.part.updated", "message.part.delta", "permission.asked", "permission.replied", "session.status"} {
		if !slices.Contains(got.Types, want) {
			t.Errorf("the SDK did not see %s: %v", want, got.Types)
		}
	}
	if got.Types[0] != "server.connected" {
		t.Errorf("first event %s", got.Types[0])
	}
	if got.Permission == nil || got.Permission.Permission != "bash" || !slices.Contains(got.Permission.Patterns, "echo hi > out.txt") {
		t.Errorf("permission %+v", got.Permission)
	}
	if got.Streamed != "Wrote out.txt." {
		t.Errorf("streamed %q", got.Streamed)
	}
	// One answer per step: the call, then the text.
	if len(got.Messages) != 3 || got.Messages[0].Role != "user" || got.Messages[1].Role != "assistant" ||
		!slices.Contains(got.Messages[1].Parts, "tool bash completed") || !slices.Contains(got.Messages[2].Parts, "text Wrote out.txt.") {
		t.Errorf("messages %+v", got.Messages)
	}
	if data := p.read("out.txt"); strings.TrimSpace(data) != "hi" {
		t.Errorf("out.txt %q", data)
	}
}

// bashScriptFor calls bash with command and then answers text.
func bashScriptFor(callID, command, text string) string {
	return "step\ncall " + callID + ` bash {"command":"` + command + "\"}\nfinish tool-calls\nstep\ntext " + text + "\nfinish stop\n"
}
