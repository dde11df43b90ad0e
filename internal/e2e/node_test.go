package e2e

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// nodeModule returns the absolute path of a module .ci/run installs under
// .ci (rel is relative to this package's directory), skipping the test
// when node or the module is missing or -short is given.
func nodeModule(t *testing.T, rel, installHint string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test; -short given")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	abs, err := filepath.Abs(rel)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(abs); err != nil {
		t.Skipf("%s is not installed: %s", abs, installHint)
	}
	return abs
}

// runNode runs the script testdata/<script> with node against the
// server s, env added to the environment, and returns what it printed on
// standard output; the test fails with the script's and the server's
// standard error when the script fails or outlives timeout.
func runNode(t *testing.T, s *serveProc, script string, timeout time.Duration, env ...string) []byte {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("testdata", script))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", path)
	cmd.Env = append(os.Environ(), "SERVER_URL="+s.url, "SERVER_TOKEN="+s.token)
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			stderr = ee.Stderr
		}
		t.Fatalf("node %s: %v\n%s\n%s\nserver: %s", script, err, out, stderr, s.stderr)
	}
	return out
}
