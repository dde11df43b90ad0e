package app

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/mcp"
	"github.com/codeloop/codeloop/internal/mcp/mcptest"
	"github.com/codeloop/codeloop/internal/message"
)

// TestMentionsResources resolves @<server>:<uri> mentions of enabled MCP
// servers into resource parts, beside files.
func TestMentionsResources(t *testing.T) {
	t.Parallel()
	srv := mcptest.Start(t)
	a := openTestAppWith(t, fmt.Sprintf(`{"mcp": {"docs": {"type": "remote", "url": %q, "oauth": false},
		"off": {"type": "remote", "url": %q, "enabled": false}}}`, srv.URL, srv.URL),
		map[string]string{"main.go": "package main\n"}, true)
	var got []string
	for _, p := range a.Mentions("summarise @docs:test://readme, @off:test://readme, @nope:test://x and @main.go", a.Dir, false) {
		f, ok := p.(*message.FilePart)
		if !ok {
			t.Fatalf("part %+v", p)
		}
		if server, uri, ok := f.Resource(); ok {
			got = append(got, "resource:"+server+":"+uri)
		} else {
			got = append(got, "file:"+f.Filename)
		}
	}
	if want := "file:main.go|resource:docs:test://readme"; strings.Join(got, "|") != want {
		t.Errorf("parts %q, want %q", got, want)
	}
}

// TestReadResource reads resources for the session engine from a real MCP
// server, waiting for one that is still connecting.
func TestReadResource(t *testing.T) {
	t.Parallel()
	srv := mcptest.Start(t)
	target, _ := url.Parse(srv.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	release := make(chan struct{})
	// The server answers nothing until released, so it stays connecting.
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		r.URL.Path = target.Path
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(slow.Close)
	a := openTestAppWith(t, fmt.Sprintf(`{"mcp": {"docs": {"type": "remote", "url": %q, "oauth": false},
		"slow": {"type": "remote", "url": %q, "oauth": false}}}`, srv.URL, slow.URL+"/mcp"), nil, true)
	r := mcpResources{mcp: a.MCP, wait: 10 * time.Second}
	ctx := context.Background()

	if st := a.MCP.Status()["slow"]; st.State != mcp.StateConnecting {
		t.Fatalf("slow server is %v, want connecting", st)
	}
	time.AfterFunc(200*time.Millisecond, func() { close(release) })
	text, blobs, err := r.ReadResource(ctx, "slow", "test://readme")
	if err != nil || text != "# Read me" || len(blobs) != 0 {
		t.Errorf("slow: %q, %v, %v", text, blobs, err)
	}
	text, _, err = r.ReadResource(ctx, "docs", "test://readme")
	if err != nil || text != "# Read me" {
		t.Errorf("docs: %q, %v", text, err)
	}
	if _, _, err := r.ReadResource(ctx, "docs", "test://missing"); err == nil {
		t.Error("reading a missing resource did not fail")
	}
	if _, _, err := r.ReadResource(ctx, "nope", "test://readme"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown server: %v", err)
	}
	if _, _, err := (mcpResources{}).ReadResource(ctx, "docs", "test://readme"); err != errNoMCP {
		t.Errorf("without MCP: %v", err)
	}
}
