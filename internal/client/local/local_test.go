package local_test

import (
	"context"
	"testing"

	"github.com/codeloop/codeloop/internal/app"
	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/client/clienttest"
	"github.com/codeloop/codeloop/internal/client/local"
)

// open starts the in-process client on an app opened over the project.
func open(t *testing.T, p *clienttest.Project) client.Client {
	t.Helper()
	a, err := app.Open(context.Background(), app.Options{Dir: p.Dir, Dirs: p.Dirs, Getenv: p.Getenv, NoMCP: true, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	c := local.New(a)
	t.Cleanup(func() {
		_ = c.Close()
		if err := a.Close(); err != nil {
			t.Errorf("closing the app: %v", err)
		}
	})
	return c
}

// TestContract runs the client contract against the in-process client.
func TestContract(t *testing.T) {
	clienttest.Run(t, open)
}
