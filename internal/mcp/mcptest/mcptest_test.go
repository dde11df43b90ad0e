package mcptest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/mcp"
	"github.com/codeloop/codeloop/internal/mcp/mcptest"
	"github.com/codeloop/codeloop/internal/tool"
)

func TestServer(t *testing.T) {
	srv := mcptest.Start(t)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	m := mcp.Start(map[string]config.MCP{"test": srv.Config()}, mcp.Options{HTTPClient: &http.Client{Transport: tr}})
	defer m.Close()
	if !m.WaitReady(context.Background(), 20*time.Second) {
		t.Fatal("not ready")
	}
	if got := m.Instructions()["test"]; got != mcptest.Instructions {
		t.Errorf("instructions = %q", got)
	}
	var add tool.Tool
	for _, tl := range m.Tools() {
		if tl.ID() == "test_add" {
			add = tl
		}
	}
	if add == nil {
		t.Fatalf("no test_add tool: %v", m.Status())
	}
	res, err := add.Run(context.Background(), &tool.Call{Input: json.RawMessage(`{"a":1,"b":2}`)})
	if err != nil || res.Output != "3" {
		t.Fatalf("add = %+v, %v", res, err)
	}
	calls := srv.Calls()
	if len(calls) != 1 || calls[0].Tool != "add" || calls[0].Arguments["b"] != float64(2) {
		t.Errorf("calls = %+v", calls)
	}
}
