package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestACPUsageErrors checks that bad flags and arguments of codeloop acp
// end with exit status 2 before anything is written to standard output,
// which belongs to the protocol.
func TestACPUsageErrors(t *testing.T) {
	_, project := agentProject(t, `{}`)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"acp", "--sandbox", "jail"}, `sandbox mode "jail"`},
		{[]string{"acp", "--cwd", filepath.Join(project, "missing")}, "is not a directory"},
		{[]string{"acp", "extra"}, "unknown command"},
	} {
		code, out, errOut := runCLI(t, "", c.args...)
		if code != exitUsage || !strings.Contains(errOut, c.want) || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, out, errOut, c.want)
		}
	}
}

// TestACPAnswersPipedRequests pipes requests into codeloop acp and closes
// its input at once: every request is answered, standard output holds
// nothing but the answers, and the exit status is 0.
func TestACPAnswersPipedRequests(t *testing.T) {
	_, project := agentProject(t, `{}`)
	dir, _ := json.Marshal(project)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`,
		fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":%s,"mcpServers":[]}}`, dir),
		fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"session/list","params":{"cwd":%s}}`, dir),
		`this line is not JSON`,
	}, "\n") + "\n"
	code, out, errOut := runCLI(t, in, "acp", "--cwd", project)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if errOut != "" {
		t.Errorf("stderr %q, want nothing without --print-logs", errOut)
	}
	answered := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var m struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Method  string          `json:"method"`
			Result  json.RawMessage `json:"result"`
			Error   *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m.JSONRPC != "2.0" {
			t.Errorf("standard output has a line that is no JSON-RPC message: %s", sc.Text())
			continue
		}
		if m.Method == "" {
			answered[string(m.ID)] = true
		}
		if string(m.ID) == "2" && !strings.Contains(string(m.Result), `"sessionId":"ses_`) {
			t.Errorf("session/new: %s", sc.Text())
		}
		if string(m.ID) == "null" && (m.Error == nil || m.Error.Code != -32700) {
			t.Errorf("the line that is not JSON got %s", sc.Text())
		}
	}
	for _, id := range []string{"1", "2", "3", "null"} {
		if !answered[id] {
			t.Errorf("request %s was not answered; stdout:\n%s", id, out)
		}
	}
}
