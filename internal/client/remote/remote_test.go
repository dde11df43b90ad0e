package remote_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/app"
	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/client/clienttest"
	"github.com/codeloop/codeloop/internal/client/local"
	"github.com/codeloop/codeloop/internal/client/remote"
	"github.com/codeloop/codeloop/internal/server"
)

const token = "test-token-0123456789"

// serve opens the engine on p, serves it on ln and returns the server's
// URL for a client; everything stops at the test's end.
func serve(t testing.TB, p *clienttest.Project, ln net.Listener, url string, hosts []string) {
	t.Helper()
	a, err := app.Open(context.Background(), app.Options{Dir: p.Dir, Dirs: p.Dirs, Getenv: p.Getenv, NoMCP: true, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	lc := local.New(a)
	srv, err := server.New(lc, server.Options{Token: token, Hosts: hosts, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln, 5*time.Second) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serving: %v", err)
		}
		_ = lc.Close()
		if err := a.Close(); err != nil {
			t.Errorf("closing the app: %v", err)
		}
	})
}

// overTCP serves p on a loopback port and returns a remote client of it.
func overTCP(t *testing.T, p *clienttest.Project) client.Client {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	serve(t, p, ln, "http://"+addr, []string{addr})
	c, err := remote.New("http://"+addr, remote.Options{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// overSocket serves p on a Unix socket and returns a remote client of it.
func overSocket(t *testing.T, p *clienttest.Project) client.Client {
	t.Helper()
	dir, err := os.MkdirTemp("", "cl-sock")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "s")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	serve(t, p, ln, "unix://"+sock, []string{"localhost"})
	c, err := remote.New("unix://"+sock, remote.Options{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// TestContract runs the client contract against a real server on a
// loopback port.
func TestContract(t *testing.T) {
	clienttest.Run(t, overTCP)
}

// TestContractSocket runs the client contract against a real server on a
// Unix socket.
func TestContractSocket(t *testing.T) {
	if testing.Short() {
		t.Skip("the contract runs over TCP too")
	}
	clienttest.Run(t, overSocket)
}

// TestWrongToken: a client with another token gets an error that says
// the token was refused, and its streams do not open.
func TestWrongToken(t *testing.T) {
	p := clienttest.NewProject(t, "", "", nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	serve(t, p, ln, "http://"+addr, []string{addr})
	c, err := remote.New("http://"+addr, remote.Options{Token: "not-it"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	_, err = c.ListSessions(ctx, client.ListSessionsOptions{})
	var re *remote.Error
	if !errors.As(err, &re) || re.Status != http.StatusUnauthorized {
		t.Fatalf("listing with a wrong token: %v", err)
	}
	if _, err := c.Subscribe(ctx, client.EventFilter{}); !errors.As(err, &re) || re.Status != http.StatusUnauthorized {
		t.Fatalf("subscribing with a wrong token: %v", err)
	}
}

// TestBadAddress: addresses the client cannot use are refused with a
// message that shows the forms it takes.
func TestBadAddress(t *testing.T) {
	for _, u := range []string{"ftp://x", "unix://", "http://", "127.0.0.1:4096"} {
		if _, err := remote.New(u, remote.Options{}); err == nil {
			t.Errorf("%q was accepted", u)
		}
	}
}
