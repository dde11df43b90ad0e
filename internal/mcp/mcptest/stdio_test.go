package mcptest

import (
	"context"
	"encoding/json"
	"slices"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServe serves the stdio flavour over in-memory transports: it has the
// HTTP server's tools and resources plus crash, which calls its crash
// function, and it ends when the client leaves.
func TestServe(t *testing.T) {
	ctx := context.Background()
	st, ct := sdk.NewInMemoryTransports()
	var crashed atomic.Bool
	done := make(chan error, 1)
	go func() { done <- serve(ctx, st, func() { crashed.Store(true) }) }()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for tl, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	if want := []string{"add", "crash", "echo", "fail"}; !slices.Equal(names, want) {
		t.Errorf("tools = %v, want %v", names, want)
	}
	res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "test://readme"})
	if err != nil || len(res.Contents) != 1 || res.Contents[0].Text != "# Read me" {
		t.Errorf("readme = %+v, %v", res, err)
	}
	call, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "crash", Arguments: json.RawMessage(`{}`)})
	if err != nil || !call.IsError || !crashed.Load() {
		t.Errorf("crash = %+v, %v; crashed %v", call, err, crashed.Load())
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Errorf("serve ended with %v", err)
	}
}
