package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/tool"
)

// transports runs f against the test server over stdio and over
// streamable HTTP.
func transports(t *testing.T, f func(t *testing.T, cfg config.MCP)) {
	t.Run("stdio", func(t *testing.T) { f(t, localServer(t)) })
	t.Run("http", func(t *testing.T) { f(t, config.MCP{Type: "remote", URL: httpServer(t) + "/mcp"}) })
}

func toolIDs(tools []tool.Tool) []string {
	var ids []string
	for _, t := range tools {
		ids = append(ids, t.ID())
	}
	return ids
}

func findTool(t *testing.T, m *Manager, id string) tool.Tool {
	t.Helper()
	for _, tl := range m.Tools() {
		if tl.ID() == id {
			return tl
		}
	}
	t.Fatalf("no tool %s among %v", id, toolIDs(m.Tools()))
	return nil
}

func run(t *testing.T, tl tool.Tool, input string, asker permission.Asker) (*tool.Result, error) {
	t.Helper()
	return tl.Run(context.Background(), &tool.Call{ID: "call1", Tool: tl.ID(), Input: json.RawMessage(input), SessionID: "ses1", MessageID: "msg1", Asker: asker})
}

func TestListingAndNaming(t *testing.T) {
	transports(t, func(t *testing.T, cfg config.MCP) {
		m := start(t, map[string]config.MCP{"my srv.1": cfg}, Options{})
		if st := m.Status()["my srv.1"]; st.State != StateConnected {
			t.Fatalf("status = %+v, want connected", st)
		}
		want := []string{"list_mcp_resources", "my_srv_1_add", "my_srv_1_crash", "my_srv_1_echo", "my_srv_1_fail",
			"my_srv_1_grow", "my_srv_1_hang", "my_srv_1_image", "my_srv_1_slow", "read_mcp_resource"}
		if got := toolIDs(m.Tools()); !slices.Equal(got, want) {
			t.Fatalf("tools = %v\nwant %v", got, want)
		}
		echo := findTool(t, m, "my_srv_1_echo")
		if echo.Description() != "Echo the text" {
			t.Errorf("description = %q", echo.Description())
		}
		var sch map[string]any
		if err := json.Unmarshal(echo.Schema(), &sch); err != nil {
			t.Fatal(err)
		}
		if _, ok := sch["$schema"]; ok || sch["type"] != "object" || sch["properties"].(map[string]any)["text"] == nil {
			t.Errorf("schema = %s", echo.Schema())
		}
		if got := m.Instructions(); got["my srv.1"] != testInstruction {
			t.Errorf("instructions = %v", got)
		}
		info := m.Servers()
		if len(info) != 1 || info[0].Tools != 8 || info[0].Prompts != 1 || info[0].Capabilities == nil {
			t.Errorf("servers = %+v", info)
		}
	})
}

func TestCallResults(t *testing.T) {
	transports(t, func(t *testing.T, cfg config.MCP) {
		m := start(t, map[string]config.MCP{"srv": cfg}, Options{})
		asker := &recordAsker{}

		res, err := run(t, findTool(t, m, "srv_echo"), `{"text":"hi there"}`, asker)
		if err != nil || res.Output != "hi there" {
			t.Fatalf("echo = %+v, %v", res, err)
		}
		reqs := asker.requests()
		if len(reqs) != 1 || reqs[0].Permission != "srv_echo" || !slices.Equal(reqs[0].Patterns, []string{"*"}) ||
			!slices.Equal(reqs[0].Always, []string{"*"}) || reqs[0].SessionID != "ses1" || reqs[0].Tool.CallID != "call1" {
			t.Errorf("permission requests = %+v", reqs)
		}

		res, err = run(t, findTool(t, m, "srv_add"), `{"a":2,"b":40}`, asker)
		if err != nil || res.Output != "42" {
			t.Fatalf("add = %+v, %v", res, err)
		}

		res, err = run(t, findTool(t, m, "srv_image"), `{}`, asker)
		if err != nil {
			t.Fatal(err)
		}
		if res.Output != "here is a pixel\n\nembedded note" {
			t.Errorf("image output = %q", res.Output)
		}
		wantURL := "data:image/png;base64," + base64.StdEncoding.EncodeToString(tinyPNG)
		if len(res.Attachments) != 1 || res.Attachments[0].Mime != "image/png" || res.Attachments[0].URL != wantURL {
			t.Errorf("attachments = %+v", res.Attachments)
		}

		_, err = run(t, findTool(t, m, "srv_fail"), `{}`, asker)
		var te *ToolError
		if !errors.As(err, &te) || te.Error() != "the disk is on fire" {
			t.Errorf("fail error = %v", err)
		}
	})
}

func TestPermissionRejectedSkipsCall(t *testing.T) {
	m := start(t, map[string]config.MCP{"srv": {Type: "remote", URL: httpServer(t) + "/mcp"}}, Options{})
	_, err := run(t, findTool(t, m, "srv_grow"), `{}`, &recordAsker{deny: true})
	var rej *permission.RejectedError
	if !errors.As(err, &rej) {
		t.Fatalf("err = %v, want a rejection", err)
	}
	if slices.Contains(toolIDs(m.Tools()), "srv_late") {
		t.Error("the rejected call reached the server")
	}
}

func TestPrompts(t *testing.T) {
	transports(t, func(t *testing.T, cfg config.MCP) {
		m := start(t, map[string]config.MCP{"my.srv": cfg}, Options{})
		ps := m.Prompts()
		if len(ps) != 1 {
			t.Fatalf("prompts = %+v", ps)
		}
		p := ps[0]
		if p.Command() != "my_srv:greet" || !slices.Equal(p.Hints(), []string{"$1", "$2"}) || p.Server != "my.srv" {
			t.Errorf("prompt = %+v, command %q, hints %v", p, p.Command(), p.Hints())
		}
		tmpl, err := m.PromptTemplate(context.Background(), p)
		if err != nil || tmpl != "Say hello to $1.\nThey feel $2." {
			t.Errorf("template = %q, %v", tmpl, err)
		}
		msgs, err := m.GetPrompt(context.Background(), "my_srv", "greet", map[string]string{"name": "Ada", "mood": "fine"})
		if err != nil || len(msgs) != 2 || msgs[0].Role != "user" || msgs[0].Text != "Say hello to Ada." {
			t.Errorf("messages = %+v, %v", msgs, err)
		}
	})
}

func TestResources(t *testing.T) {
	transports(t, func(t *testing.T, cfg config.MCP) {
		m := start(t, map[string]config.MCP{"srv": cfg}, Options{})
		ctx := context.Background()
		rs, err := m.Resources(ctx, "")
		if err != nil || len(rs) != 2 {
			t.Fatalf("resources = %+v, %v", rs, err)
		}
		rc, err := m.ReadResource(ctx, "srv", "test://readme")
		if err != nil || rc.Text != "# Read me" || len(rc.Attachments) != 0 {
			t.Errorf("readme = %+v, %v", rc, err)
		}
		rc, err = m.ReadResource(ctx, "srv", "test://logo")
		if err != nil || rc.Text != "" || len(rc.Attachments) != 1 || rc.Attachments[0].Filename != "test://logo" {
			t.Errorf("logo = %+v, %v", rc, err)
		}

		asker := &recordAsker{}
		res, err := run(t, findTool(t, m, "list_mcp_resources"), `{"server":"srv"}`, asker)
		if err != nil || !strings.Contains(res.Output, `"uri": "test://readme"`) || !strings.Contains(res.Output, `"uri": "test://logo"`) {
			t.Errorf("list output = %+v, %v", res, err)
		}
		res, err = run(t, findTool(t, m, "read_mcp_resource"), `{"server":"srv","uri":"test://readme"}`, asker)
		if err != nil || res.Output != "# Read me" {
			t.Errorf("read output = %+v, %v", res, err)
		}
		reqs := asker.requests()
		if len(reqs) != 1 || reqs[0].Permission != "read" || !slices.Equal(reqs[0].Patterns, []string{"mcp:srv:test://readme"}) {
			t.Errorf("permission requests = %+v", reqs)
		}
		if _, err := m.ReadResource(ctx, "nosuch", "x"); err == nil {
			t.Error("reading from an unknown server worked")
		}
	})
}

func TestToolListChanged(t *testing.T) {
	transports(t, func(t *testing.T, cfg config.MCP) {
		b := bus.New(0)
		sub := b.Subscribe(bus.Filter{Types: []string{bus.MCPToolsChanged}}, 16)
		defer sub.Close()
		m := start(t, map[string]config.MCP{"srv": cfg}, Options{Bus: b})
		waitEvent(t, sub) // the connection itself
		if _, err := run(t, findTool(t, m, "srv_grow"), `{}`, nil); err != nil {
			t.Fatal(err)
		}
		ev := waitEvent(t, sub)
		if ev.Properties.(ToolsChanged).Server != "srv" {
			t.Errorf("event = %+v", ev)
		}
		eventually(t, "the late tool", func() bool { return slices.Contains(toolIDs(m.Tools()), "srv_late") })
		res, err := run(t, findTool(t, m, "srv_late"), `{}`, nil)
		if err != nil || res.Output != "late" {
			t.Errorf("late = %+v, %v", res, err)
		}
	})
}

func waitEvent(t *testing.T, sub *bus.Subscription) bus.Event {
	t.Helper()
	select {
	case ev := <-sub.C:
		return ev
	case <-time.After(20 * time.Second):
		t.Fatal("no mcp.tools.changed event")
	}
	return bus.Event{}
}

func TestHungCallTimesOut(t *testing.T) {
	transports(t, func(t *testing.T, cfg config.MCP) {
		m := start(t, map[string]config.MCP{"srv": cfg}, Options{CallTimeout: 300 * time.Millisecond})
		_, err := run(t, findTool(t, m, "srv_hang"), `{}`, nil)
		var te *TimeoutError
		if !errors.As(err, &te) || te.After != 300*time.Millisecond {
			t.Fatalf("err = %v, want a timeout", err)
		}
		// The server is still usable.
		if res, err := run(t, findTool(t, m, "srv_echo"), `{"text":"still here"}`, nil); err != nil || res.Output != "still here" {
			t.Errorf("echo after timeout = %+v, %v", res, err)
		}
	})
}

func TestProgressRestartsTimeout(t *testing.T) {
	// Eight steps of 100ms each take longer than the 350ms timeout, but
	// every step reports progress.
	m := start(t, map[string]config.MCP{"srv": localServer(t)}, Options{CallTimeout: 350 * time.Millisecond})
	var titles []string
	tl := findTool(t, m, "srv_slow")
	res, err := tl.Run(context.Background(), &tool.Call{Input: json.RawMessage(`{"steps":8}`), Progress: func(title string, md map[string]any) {
		titles = append(titles, title)
	}})
	if err != nil || res.Output != "done" {
		t.Fatalf("slow = %+v, %v", res, err)
	}
	if len(titles) == 0 {
		t.Error("no progress reported")
	}
}

func TestAbortDuringCall(t *testing.T) {
	transports(t, func(t *testing.T, cfg config.MCP) {
		m := start(t, map[string]config.MCP{"srv": cfg}, Options{})
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(200*time.Millisecond, cancel)
		_, err := findTool(t, m, "srv_hang").Run(ctx, &tool.Call{Input: json.RawMessage(`{}`)})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if st := m.Status()["srv"]; st.State != StateConnected {
			t.Errorf("status after abort = %+v", st)
		}
	})
}

func TestServerCrashMidCall(t *testing.T) {
	b := bus.New(0)
	sub := b.Subscribe(bus.Filter{Types: []string{bus.MCPToolsChanged}}, 16)
	defer sub.Close()
	m := start(t, map[string]config.MCP{"crashy": localServer(t), "steady": localServer(t)}, Options{Bus: b})
	_, err := run(t, findTool(t, m, "crashy_crash"), `{}`, nil)
	if err == nil || !strings.Contains(err.Error(), `MCP server "crashy" closed the connection`) {
		t.Fatalf("err = %v", err)
	}
	eventually(t, "crashy failed", func() bool { return m.Status()["crashy"].State == StateFailed })
	if slices.ContainsFunc(toolIDs(m.Tools()), func(id string) bool { return strings.HasPrefix(id, "crashy_") }) {
		t.Errorf("the crashed server's tools remain: %v", toolIDs(m.Tools()))
	}
	_, err = m.CallTool(context.Background(), "crashy", "echo", nil, nil)
	var nc *NotConnectedError
	if !errors.As(err, &nc) || nc.Status.State != StateFailed {
		t.Errorf("call on crashed server = %v", err)
	}
	if res, err := run(t, findTool(t, m, "steady_echo"), `{"text":"ok"}`, nil); err != nil || res.Output != "ok" {
		t.Errorf("the other server = %+v, %v", res, err)
	}
}

func TestSlowServerDoesNotHoldUpStart(t *testing.T) {
	t.Parallel()
	m := Start(map[string]config.MCP{
		"fast": localServer(t),
		"slow": localServer(t, envTestDelay, "5s"),
	}, Options{})
	defer m.Close()
	if m.WaitReady(context.Background(), time.Second) {
		t.Fatal("WaitReady reported ready although the slow server takes 5s")
	}
	// Whatever has connected by the deadline is usable; the fast server
	// normally has, but a loaded machine may need a little longer.
	eventually(t, "the fast server", func() bool { return m.Status()["fast"].State == StateConnected })
	if st := m.Status()["slow"]; st.State != StateConnecting {
		t.Errorf("slow status = %+v, want connecting", st)
	}
	if slices.Contains(toolIDs(m.Tools()), "slow_echo") {
		t.Error("the slow server's tools are there before it connected")
	}
	// It joins later, and its tools appear from then on.
	eventually(t, "the slow server", func() bool { return slices.Contains(toolIDs(m.Tools()), "slow_echo") })
	if !m.WaitReady(context.Background(), time.Second) {
		t.Error("WaitReady not ready after every server connected")
	}
}

func TestStatuses(t *testing.T) {
	off := false
	m := start(t, map[string]config.MCP{
		"off":      {Type: "local", Command: []string{"does-not-matter"}, Enabled: &off},
		"missing":  {Type: "local", Command: []string{"/nonexistent/codeloop-mcp-server"}},
		"notype":   {Command: []string{"x"}},
		"badtype":  {Type: "ftp"},
		"nourl":    {Type: "remote"},
		"refused":  {Type: "remote", URL: "http://127.0.0.1:1/mcp"},
		"nothing":  {Type: "local"},
		"slowinit": {Type: "local", Command: localServer(t).Command, Environment: map[string]string{envTestServer: "1", envTestDelay: "10s"}, Timeout: ptr(300)},
	}, Options{})
	want := map[string]State{"off": StateDisabled, "missing": StateFailed, "notype": StateFailed, "badtype": StateFailed,
		"nourl": StateFailed, "refused": StateFailed, "nothing": StateFailed, "slowinit": StateFailed}
	for name, st := range m.Status() {
		if st.State != want[name] {
			t.Errorf("%s: status %+v, want %s", name, st, want[name])
		}
		if st.State == StateFailed && st.Error == "" {
			t.Errorf("%s: failed without an error", name)
		}
	}
	if e := m.Status()["slowinit"].Error; !strings.Contains(e, "no answer within 300ms") {
		t.Errorf("slowinit error = %q", e)
	}
	if len(m.Tools()) != 0 {
		t.Errorf("tools = %v", toolIDs(m.Tools()))
	}
}

func ptr[T any](v T) *T { return &v }

func TestReconnect(t *testing.T) {
	m := start(t, map[string]config.MCP{"srv": localServer(t)}, Options{})
	if _, err := run(t, findTool(t, m, "srv_crash"), `{}`, nil); err == nil {
		t.Fatal("crash returned no error")
	}
	eventually(t, "failed", func() bool { return m.Status()["srv"].State == StateFailed })
	if err := m.Reconnect(context.Background(), "srv"); err != nil {
		t.Fatal(err)
	}
	if res, err := run(t, findTool(t, m, "srv_echo"), `{"text":"back"}`, nil); err != nil || res.Output != "back" {
		t.Errorf("echo after reconnect = %+v, %v", res, err)
	}
}

func TestSSEFallback(t *testing.T) {
	m := start(t, map[string]config.MCP{"srv": {Type: "remote", URL: sseServer(t)}}, Options{})
	info := m.Servers()
	if info[0].Status.State != StateConnected || info[0].Transport != "sse" {
		t.Fatalf("server = %+v", info[0])
	}
	if res, err := run(t, findTool(t, m, "srv_echo"), `{"text":"over sse"}`, nil); err != nil || res.Output != "over sse" {
		t.Errorf("echo = %+v, %v", res, err)
	}
}

func TestHeadersSent(t *testing.T) {
	url := httpServerWith(t, func(h string) bool { return h == "secret" })
	m := start(t, map[string]config.MCP{
		"with":    {Type: "remote", URL: url, Headers: map[string]string{"X-Api-Key": "secret"}},
		"without": {Type: "remote", URL: url, OAuth: &config.MCPOAuth{Disabled: true}},
	}, Options{})
	st := m.Status()
	if st["with"].State != StateConnected {
		t.Errorf("with = %+v", st["with"])
	}
	if st["without"].State != StateFailed || !strings.Contains(st["without"].Error, "OAuth is disabled") {
		t.Errorf("without = %+v", st["without"])
	}
}
