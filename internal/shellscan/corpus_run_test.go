//go:build unix

package shellscan

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestBashCorpusRun runs corpus cases for real with bash in a temporary
// directory holding a file "keep". Every case the analysis allows runs,
// and must neither create "marker" nor remove "keep": a text that would
// run touch or rm must have been denied. The cases marked "creates" run
// too, and must create the marker or remove keep, which shows that the
// trick they use does run the denied program.
func TestBashCorpusRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs bash for every case")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	svc, rules := corpusService(t)
	type run struct {
		c       corpusCase
		dir     string
		allowed bool
	}
	var runs []run
	for _, c := range loadCorpus(t) {
		decision, _ := decideBash(t.Context(), svc, rules, AnalyzeBash(c.cmd))
		allowed := decision == "allow"
		if c.has("norun") || (!allowed && !c.has("creates")) || (c.has("case-sensitive") && caseInsensitive()) {
			continue
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "keep"), []byte("keep\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		runCase(t, bash, dir, c.cmd)
		runs = append(runs, run{c: c, dir: dir, allowed: allowed})
	}
	// Give commands left running in the background a moment to finish.
	time.Sleep(200 * time.Millisecond)
	ran := 0
	for _, r := range runs {
		_, err := os.Stat(filepath.Join(r.dir, "marker"))
		created := err == nil
		_, err = os.Stat(filepath.Join(r.dir, "keep"))
		removed := os.IsNotExist(err)
		name := filepath.Base(r.c.file) + "/" + r.c.name
		if r.allowed {
			ran++
			if created || removed {
				t.Errorf("%s: %q was allowed and, run, created marker (%v) or removed keep (%v)", name, r.c.cmd, created, removed)
			}
			continue
		}
		if !created && !removed {
			t.Errorf("%s: %q is marked creates but, run, neither created marker nor removed keep", name, r.c.cmd)
		}
	}
	t.Logf("ran %d allowed cases and %d denied ones", ran, len(runs)-ran)
}

// runCase runs cmd with bash in dir, with no input and a bounded time,
// killing whatever it leaves running.
func runCase(t *testing.T, bash, dir, cmd string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, bash, "--noprofile", "--norc", "-c", cmd)
	c.Dir = dir
	c.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "HOME=" + dir, "LANG=C"}
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
	c.WaitDelay = time.Second
	out, err := c.CombinedOutput()
	if ctx.Err() != nil {
		t.Logf("%q timed out: %s", cmd, strings.TrimSpace(string(out)))
	}
	_ = err // failing commands are expected
	if c.Process != nil {
		_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
	}
}
