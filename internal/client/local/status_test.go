package local_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/codeloop/codeloop/internal/app"
	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/client/clienttest"
	"github.com/codeloop/codeloop/internal/client/local"
	"github.com/codeloop/codeloop/internal/client/remote"
	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/server"
)

// TestMCPStatus starts a disabled server and one whose program does not
// exist, and reads their states in process and over HTTP.
func TestMCPStatus(t *testing.T) {
	p := clienttest.NewProject(t, "", "", nil)
	off := false
	a, err := app.Open(context.Background(), app.Options{Dir: p.Dir, Dirs: p.Dirs, Getenv: p.Getenv, Version: "test",
		MCP: map[string]config.MCP{
			"off":    {Type: "local", Command: []string{"true"}, Enabled: &off},
			"broken": {Type: "local", Command: []string{"/nonexistent/mcp-server"}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	lc := local.New(a)
	t.Cleanup(func() { _ = lc.Close(); _ = a.Close() })
	srv, err := server.New(lc, server.Options{Token: "0123456789abcdef-test", Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	rc, err := remote.New(hs.URL, remote.Options{Token: "0123456789abcdef-test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rc.Close() })

	ctx, cancel := context.WithTimeout(context.Background(), clienttest.Timeout)
	defer cancel()
	if !a.MCP.WaitReady(ctx, clienttest.Timeout) {
		t.Fatal("the MCP servers did not settle")
	}
	for name, c := range map[string]client.Client{"local": lc, "remote": rc} {
		st, err := c.MCPStatus(ctx)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := st["off"]; got.Status != client.MCPDisabled {
			t.Errorf("%s: off = %+v, want disabled", name, got)
		}
		if got := st["broken"]; got.Status != client.MCPFailed || got.Error == "" {
			t.Errorf("%s: broken = %+v, want failed with a reason", name, got)
		}
		lsp, err := c.LSPStatus(ctx)
		if err != nil || lsp == nil || len(lsp) != 0 {
			t.Errorf("%s: LSPStatus = %v, %v; want an empty list before any file is touched", name, lsp, err)
		}
	}
}
