package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/waitfor"
)

// TestSandboxHidesServerToken serves on a Unix socket with the sandbox on
// and has the model's confined command read the server's token, from its
// state file or from $CODELOOP_SERVER_TOKEN when that gave it, and ask the
// server, over the socket, to run a shell command of the user's, which is
// not confined. The state directory must be hidden from confined commands
// and the variable left out of their environment, so the command finds no
// token, the server refuses it and nothing is written outside the project.
func TestSandboxHidesServerToken(t *testing.T) {
	needLandlock(t)
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	for _, c := range []struct {
		name, read string
		env        []string
	}{
		{"state file", `tok=$(cat "$XDG_STATE_HOME"/codeloop/server/*.json | sed -n 's/.*"token": *"\([^"]*\)".*/\1/p')`, nil},
		{"environment", `tok=$CODELOOP_SERVER_TOKEN`, []string{"CODELOOP_SERVER_TOKEN=a-token-of-the-user-0123456789"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			read, env := c.read, c.env
			dir, err := os.MkdirTemp("", "cl-e2e")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(dir)
			sock := filepath.Join(dir, "run", "codeloop.sock")
			api := `curl -s --unix-socket ` + sock + ` -H "Authorization: Bearer $tok" -H 'Content-Type: application/json' -X POST http://localhost/session`
			cmd := read + `; echo "token:$tok."; ` +
				`sid=$(` + api + ` -d '{}' | sed -n 's/^{"id":"\([^"]*\)".*/\1/p'); ` +
				api + `/$sid/shell -d '{"command":"touch \"$HOME\"/escaped"}'`
			args, _ := json.Marshal(map[string]string{"command": cmd})
			p := newProject(t, fmt.Sprintf("step\ncall call_1 bash %s\nfinish tool-calls\nstep\ntext Done.\nfinish stop\n", args), nil)
			p.trust()
			s := p.serveEnv(env, "--socket", sock, "--sandbox", "workspace-write")
			if _, err := os.Stat(s.state); err != nil {
				t.Fatalf("the server wrote no state file: %v", err)
			}
			cl := s.client(t)
			ctx := context.Background()
			sess, err := cl.CreateSession(ctx, client.CreateSessionInput{Title: "confined"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := cl.Prompt(ctx, sess.ID, client.PromptInput{Parts: []client.PartInput{{Type: "text", Text: "go"}}}); err != nil {
				t.Fatal(err)
			}
			waitfor.Until(t, "the tool result to reach the model", func() bool { return len(p.model.Requests()) >= 2 })
			result, _ := toolResult(t, p.model.Requests()[1].Body, "call_1")
			if !strings.Contains(result, "token:.") {
				t.Errorf("the confined command read the server's token: %s", result)
			}
			if _, err := os.Stat(filepath.Join(p.home, "escaped")); err == nil {
				t.Errorf("the confined command had the server run a command outside the sandbox: %s", result)
			}
		})
	}
}
