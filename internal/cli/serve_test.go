package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/config"
)

// TestListenPlan: where serve listens, from the flags and the config,
// and which addresses it refuses.
func TestListenPlan(t *testing.T) {
	port := 5000
	for _, tc := range []struct {
		name    string
		args    []string
		cfg     config.Server
		address string
		refused string // in the error, when refused
	}{
		{name: "default", address: "127.0.0.1:4096"},
		{name: "free port", args: []string{"--port", "0"}, address: "127.0.0.1:0"},
		{name: "localhost", args: []string{"--hostname", "localhost"}, address: "127.0.0.1:4096"},
		{name: "ipv6 loopback", args: []string{"--hostname", "::1"}, address: "[::1]:4096"},
		{name: "config", cfg: config.Server{Port: &port, Hostname: "127.0.0.2"}, address: "127.0.0.2:5000"},
		{name: "flags over config", args: []string{"--port", "7"}, cfg: config.Server{Port: &port}, address: "127.0.0.1:7"},
		{name: "every address", args: []string{"--hostname", "0.0.0.0"}, refused: "--insecure-listen"},
		{name: "a LAN address", args: []string{"--hostname", "192.168.1.4"}, refused: "not a loopback address"},
		{name: "a public name from config", cfg: config.Server{Hostname: "example.com"}, refused: "not a loopback address"},
		{name: "insecure", args: []string{"--hostname", "0.0.0.0", "--insecure-listen"}, address: "0.0.0.0:4096"},
		{name: "socket", args: []string{"--socket", "/tmp/x/s.sock"}, address: "/tmp/x/s.sock"},
		{name: "socket and port", args: []string{"--socket", "/tmp/s", "--port", "1"}, refused: "cannot be used with"},
		{name: "bad port", args: []string{"--port", "70000"}, refused: "0 to 65535"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &env{}
			cmd := newServeCmd(e)
			var o serveOptions
			cmd.RunE = nil
			if err := cmd.ParseFlags(tc.args); err != nil {
				t.Fatal(err)
			}
			f := cmd.Flags()
			o.port, _ = f.GetInt("port")
			o.hostname, _ = f.GetString("hostname")
			o.socket, _ = f.GetString("socket")
			o.insecureListen, _ = f.GetBool("insecure-listen")
			spec, err := listenPlan(cmd, o, tc.cfg)
			if tc.refused != "" {
				var ec *exitCodeError
				if err == nil || !strings.Contains(err.Error(), tc.refused) || !errors.As(err, &ec) || ec.code != exitUsage {
					t.Fatalf("error %v, want a usage error saying %q", err, tc.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if spec.address != tc.address {
				t.Errorf("address %q, want %q", spec.address, tc.address)
			}
		})
	}
}

// TestListenHosts: a loopback server accepts the Host names it is
// reached by; one on every address cannot know them.
func TestListenHosts(t *testing.T) {
	spec := listenSpec{network: "tcp", address: "127.0.0.1:0"}
	ln, err := spec.listen()
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := spec.url[strings.LastIndex(spec.url, ":")+1:]
	if len(spec.hosts) != 2 || spec.hosts[0] != "127.0.0.1:"+port || spec.hosts[1] != "localhost:"+port {
		t.Errorf("hosts %v for %s", spec.hosts, spec.url)
	}
	if _, err := (&listenSpec{network: "tcp", address: ln.Addr().String()}).listen(); err == nil || !strings.Contains(err.Error(), "--port 0") {
		t.Errorf("a port in use: %v", err)
	}
}

// TestServerToken: a given token must be long enough; a random one is
// new each time.
func TestServerToken(t *testing.T) {
	e := &env{getenv: func(k string) string { return map[string]string{tokenEnv: "from-the-environment"}[k] }}
	if tok, err := e.serverToken(serveOptions{}); err != nil || tok != "from-the-environment" {
		t.Errorf("token %q, %v", tok, err)
	}
	if tok, _ := e.serverToken(serveOptions{token: "from-the-flag-0123"}); tok != "from-the-flag-0123" {
		t.Errorf("the flag did not win: %q", tok)
	}
	if _, err := e.serverToken(serveOptions{token: "short"}); err == nil {
		t.Error("a short token was accepted")
	}
	e.getenv = func(string) string { return "" }
	a, _ := e.serverToken(serveOptions{})
	b, _ := e.serverToken(serveOptions{})
	if len(a) < 40 || a == b {
		t.Errorf("random tokens %q and %q", a, b)
	}
}

// TestServerState: the state file is private, listed while its process
// runs and dropped when it does not; attach picks the server of the
// directory, or the only one.
func TestServerState(t *testing.T) {
	state := t.TempDir()
	path, err := writeServerState(state, serverState{URL: "http://127.0.0.1:1", Token: "t", PID: os.Getpid(), Directory: "/work/a", Started: 2})
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o700} {
		if st, err := os.Stat(p); err != nil || st.Mode().Perm() != want {
			t.Errorf("%s: mode %v, %v; want %v", p, st.Mode().Perm(), err, want)
		}
	}
	dead, err := writeServerState(state, serverState{URL: "http://127.0.0.1:2", PID: 1 << 30, Directory: "/work/b"})
	if err != nil {
		t.Fatal(err)
	}
	list := runningServers(state)
	if len(list) != 1 || list[0].URL != "http://127.0.0.1:1" {
		t.Fatalf("running %+v", list)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("the state of a dead server was kept: %v", err)
	}

	servers := []serverState{
		{URL: "http://a", Directory: "/work/a", Started: 3},
		{URL: "http://b", Directory: "/work", Started: 2},
	}
	for _, tc := range []struct{ url, dir, want, err string }{
		{dir: "/work/a/sub", want: "http://a"},
		{dir: "/work/other", want: "http://b"},
		{dir: "/elsewhere", err: "several codeloop servers"},
		{url: "http://b/", dir: "/elsewhere", want: "http://b"},
		{url: "http://c", dir: "/work/a", want: "http://c"},
	} {
		got, err := pickServer(servers, tc.url, tc.dir)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q in %s: %v, want an error saying %q", tc.url, tc.dir, err, tc.err)
			}
			continue
		}
		if err != nil || got.URL != tc.want {
			t.Errorf("%q in %s: %q, %v; want %q", tc.url, tc.dir, got.URL, err, tc.want)
		}
	}
	if got, err := pickServer(servers[:1], "", "/elsewhere"); err != nil || got.URL != "http://a" {
		t.Errorf("the only server: %q, %v", got.URL, err)
	}
	if _, err := pickServer(nil, "", "/work"); err == nil || !strings.Contains(err.Error(), "codeloop serve") {
		t.Errorf("no server: %v", err)
	}
}

// TestServeHelpDefaults: serve --help names each flag's default once.
func TestServeHelpDefaults(t *testing.T) {
	code, out, _ := runCLI(t, "", "serve", "--help")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, l := range strings.Split(out, "\n") {
		if n := strings.Count(l, "default"); n > 1 {
			t.Errorf("a default named %d times: %q", n, l)
		}
	}
	for _, want := range []string{"(default 4096)", `(default "127.0.0.1")`} {
		if !strings.Contains(out, want) {
			t.Errorf("no %s in:\n%s", want, out)
		}
	}
}
