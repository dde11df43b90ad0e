package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/waitfor"
)

// TestServeSessionRulesBindSubAgents creates a session through the server
// with a rule that asks before any bash command, and has the model start a
// general sub-agent that runs one. The command must be asked about, in the
// child session, before it runs: a sub-agent may not do without asking
// what its caller must ask. Rejecting the ask leaves no file made.
func TestServeSessionRulesBindSubAgents(t *testing.T) {
	script := `
step
call call_1 task {"description":"make it","prompt":"make the file","subagent_type":"general"}
finish tool-calls
step
call call_2 bash {"command":"touch made"}
finish tool-calls
step
text child done.
finish stop
step
text Done.
finish stop
`
	p := newProject(t, script, map[string]string{"a.txt": "a\n"})
	p.trust()
	s := p.serve("--port", "0")
	do := func(method, path, body string) string {
		t.Helper()
		req, err := http.NewRequest(method, s.url+path, bytes.NewBufferString(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+s.token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode/100 != 2 {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
		}
		return string(b)
	}
	var sess struct{ ID string }
	if err := json.Unmarshal([]byte(do("POST", "/session", `{"permission":[{"permission":"bash","pattern":"*","action":"ask"}]}`)), &sess); err != nil || sess.ID == "" {
		t.Fatalf("no session: %v", err)
	}
	do("POST", "/session/"+sess.ID+"/prompt_async", `{"parts":[{"type":"text","text":"go"}]}`)
	made := filepath.Join(p.dir, "made")
	type pending struct {
		ID         string
		SessionID  string
		Permission string
		Patterns   []string
	}
	var asked []pending
	waitfor.Until(t, "the bash command asked about or run", func() bool {
		if _, err := os.Stat(made); err == nil {
			return true
		}
		asked = nil
		return json.Unmarshal([]byte(do("GET", "/permission", "")), &asked) == nil && len(asked) > 0
	})
	if _, err := os.Stat(made); err == nil {
		t.Fatal("the sub-agent ran touch without asking, though its caller's session asks before any bash command")
	}
	if len(asked) != 1 || asked[0].Permission != "bash" || asked[0].SessionID == sess.ID ||
		!strings.Contains(strings.Join(asked[0].Patterns, " "), "touch made") {
		t.Fatalf("pending requests %+v, want one for touch made in the child session", asked)
	}
	do("POST", "/permission/"+asked[0].ID+"/reply", `{"reply":"reject"}`)
	waitfor.Until(t, "the session to finish", func() bool {
		return !strings.Contains(do("GET", "/session/status", ""), sess.ID)
	})
	if _, err := os.Stat(made); err == nil {
		t.Error("the rejected command ran")
	}
}
