package mcp

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/proc"
)

// The integration tests run the reference server
// @modelcontextprotocol/server-everything from npm. They find it, in order:
//   - $CODELOOP_MCP_EVERYTHING: the package directory or its dist/index.js;
//   - .ci/npm/node_modules/@modelcontextprotocol/server-everything at the
//     repository root (what .ci/run installs);
//   - npx, which fetches it from the registry.
//
// They skip only when neither node nor npx is installed.
const envEverything = "CODELOOP_MCP_EVERYTHING"

// everythingCommand returns the command that starts the reference server
// with the given transport argument.
func everythingCommand(t *testing.T, transport string) []string {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test; -short given")
	}
	node, nodeErr := exec.LookPath("node")
	script := ""
	if p := os.Getenv(envEverything); p != "" {
		script = p
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			script = filepath.Join(p, "dist", "index.js")
		}
		if _, err := os.Stat(script); err != nil {
			t.Fatalf("$%s: %v", envEverything, err)
		}
	} else if p, err := filepath.Abs("../../.ci/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js"); err == nil {
		if _, err := os.Stat(p); err == nil {
			script = p
		}
	}
	if script != "" {
		if nodeErr != nil {
			t.Skip("node is not installed")
		}
		return []string{node, script, transport}
	}
	npx, err := exec.LookPath("npx")
	if err != nil {
		t.Skip("neither node with the installed package nor npx is available")
	}
	return []string{npx, "--yes", "@modelcontextprotocol/server-everything", transport}
}

func TestEverythingStdio(t *testing.T) {
	cmd := everythingCommand(t, "stdio")
	m := startEverything(t, config.MCP{Type: "local", Command: cmd})
	exerciseEverything(t, m)
}

func TestEverythingStreamableHTTP(t *testing.T) {
	cmd := everythingCommand(t, "streamableHttp")
	port := freePort(t)
	// The server runs as a child of the test for its lifetime.
	srv := exec.Command(cmd[0], cmd[1:]...)
	srv.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	run, err := proc.Start(srv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = run.Signal(syscall.SIGTERM)
		_ = run.Wait()
	})
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	eventually(t, "the server to listen on "+addr, func() bool {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	m := startEverything(t, config.MCP{Type: "remote", URL: "http://" + addr + "/mcp"})
	if tr := m.Servers()[0].Transport; tr != "streamable-http" {
		t.Errorf("transport = %q", tr)
	}
	exerciseEverything(t, m)
}

func startEverything(t *testing.T, cfg config.MCP) *Manager {
	t.Helper()
	// npx may need to fetch the package: allow it a minute.
	m := Start(map[string]config.MCP{"everything": cfg}, Options{ConnectTimeout: time.Minute, HTTPClient: testHTTPClient(t)})
	t.Cleanup(func() { _ = m.Close() })
	m.WaitReady(context.Background(), 2*time.Minute)
	if st := m.Status()["everything"]; st.State != StateConnected {
		t.Fatalf("status = %+v", st)
	}
	return m
}

func exerciseEverything(t *testing.T, m *Manager) {
	ctx := context.Background()
	ids := toolIDs(m.Tools())
	for _, want := range []string{"everything_echo", "everything_get-sum", "everything_get-tiny-image", "list_mcp_resources", "read_mcp_resource"} {
		if !slices.Contains(ids, want) {
			t.Errorf("tool %s missing from %v", want, ids)
		}
	}

	res, err := run(t, findTool(t, m, "everything_echo"), `{"message":"hello from codeloop"}`, &recordAsker{})
	if err != nil || !strings.Contains(res.Output, "hello from codeloop") {
		t.Errorf("echo = %+v, %v", res, err)
	}
	res, err = run(t, findTool(t, m, "everything_get-sum"), `{"a":19,"b":23}`, nil)
	if err != nil || !strings.Contains(res.Output, "42") {
		t.Errorf("get-sum = %+v, %v", res, err)
	}
	res, err = run(t, findTool(t, m, "everything_get-tiny-image"), `{}`, nil)
	if err != nil || len(res.Attachments) == 0 || res.Attachments[0].Mime != "image/png" || !strings.HasPrefix(res.Attachments[0].URL, "data:image/png;base64,") {
		t.Errorf("get-tiny-image = %+v, %v", res, err)
	}

	rs, err := m.Resources(ctx, "everything")
	if err != nil || len(rs) == 0 {
		t.Fatalf("resources = %v, %v", rs, err)
	}
	i := slices.IndexFunc(rs, func(r Resource) bool { return strings.HasSuffix(r.URI, ".md") })
	if i < 0 {
		t.Fatalf("no markdown resource among %v", rs)
	}
	rc, err := m.ReadResource(ctx, "everything", rs[i].URI)
	if err != nil || strings.TrimSpace(rc.Text) == "" {
		t.Errorf("read %s = %+v, %v", rs[i].URI, rc, err)
	}

	msgs, err := m.GetPrompt(ctx, "everything", "simple-prompt", nil)
	if err != nil || len(msgs) == 0 || !strings.Contains(msgs[0].Text, "simple prompt") {
		t.Errorf("simple-prompt = %+v, %v", msgs, err)
	}
	ps := m.Prompts()
	j := slices.IndexFunc(ps, func(p Prompt) bool { return p.Name == "args-prompt" })
	if j < 0 {
		t.Fatalf("no args-prompt among %+v", ps)
	}
	if ps[j].Command() != "everything:args-prompt" {
		t.Errorf("command = %q", ps[j].Command())
	}
	tmpl, err := m.PromptTemplate(ctx, ps[j])
	if err != nil || !strings.Contains(tmpl, "$1") {
		t.Errorf("args-prompt template = %q, %v", tmpl, err)
	}
	t.Logf("instructions: %d bytes", len(m.Instructions()["everything"]))
}
