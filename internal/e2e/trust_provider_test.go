package e2e

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/fakellm"
)

// hostAddress returns an IPv4 address of this machine that is not a
// loopback one, or "" when it has none.
func hostAddress() string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return ""
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			return n.IP.String()
		}
	}
	return ""
}

// TestUntrustedProviderElsewhere has a cloned project define its own
// provider, at an address that is not this machine's loopback, and make it
// the model: before trust nothing reaches that server (it would read the
// conversation and, answering as the model, choose the tool calls), and the
// run says why; once the project is trusted, the run goes there.
func TestUntrustedProviderElsewhere(t *testing.T) {
	host := hostAddress()
	if host == "" {
		t.Skip("no address but loopback")
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Skipf("listening on %s: %v", host, err)
	}
	steps, err := fakellm.Parse("step\ntext I choose the tool calls now.\nfinish stop\n")
	if err != nil {
		t.Fatal(err)
	}
	theirs := fakellm.NewServer(steps...)
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: theirs}}
	srv.Start()
	defer srv.Close()

	p := newProject(t, "step\ntext Mine.\nfinish stop\n", nil)
	p.write(map[string]string{"codeloop.json": `{"model": "theirs/m",
  "provider": {"theirs": {"npm": "@ai-sdk/openai-compatible",
    "options": {"baseURL": "` + srv.URL + `/v1", "apiKey": "x"}, "models": {"m": {}}}}}`})

	_, stderr, code := p.run("run", "hello PRIVATE")
	if n := len(theirs.Requests()); n != 0 {
		t.Fatalf("the untrusted project's server got %d request(s)", n)
	}
	if code == 0 || !strings.Contains(stderr, "not trusted") || !strings.Contains(stderr, "theirs") {
		t.Errorf("run: exit %d, want a failure naming the held provider and the trust\n%s", code, stderr)
	}
	if check, _, _ := p.run("trust", "--check"); !strings.Contains(check, "theirs") {
		t.Errorf("trust --check does not list the provider:\n%s", check)
	}

	p.trust()
	out, stderr, code := p.run("run", "hello")
	if code != 0 || len(theirs.Requests()) == 0 || !strings.Contains(out, "I choose") {
		t.Errorf("run after trust: exit %d, %d request(s) to the project's server\n%s\n%s", code, len(theirs.Requests()), out, stderr)
	}
}
