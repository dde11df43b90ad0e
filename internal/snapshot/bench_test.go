package snapshot

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// makeProject writes n files of a few KB in nested directories.
func makeProject(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	for i := range n {
		d := filepath.Join(dir, fmt.Sprintf("pkg%02d", i%50), fmt.Sprintf("sub%02d", i%7))
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
		content := fmt.Sprintf("package p%d\n\n// file %d\n%s", i, i, string(make([]byte, 2000+i%3000)))
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%05d.go", i)), []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// BenchmarkStepScan measures a step's snapshot overhead in a 10,000-file
// project after the first step: a step that runs bash (scan before, scan
// after, one file changed by the command; the watcher tells the scans
// what changed).
// BenchmarkStepGit does the same step the way a git snapshot does it
// (`git add -A && git write-tree` in a separate git directory) on the
// same tree, for comparison.
func BenchmarkStepScan(b *testing.B) { benchmarkStepScan(b, false) }

// BenchmarkStepWalk is BenchmarkStepScan with the change watcher off:
// both scans of every step walk the whole tree.
func BenchmarkStepWalk(b *testing.B) { benchmarkStepScan(b, true) }

// BenchmarkStepScan200k is BenchmarkStepScan on 200,000 small files.
func BenchmarkStepScan200k(b *testing.B) { benchmarkStepScanIn(b, makeSmallFiles(b, 200000), false) }

// makeSmallFiles writes n files of a few bytes, 200 to a directory.
func makeSmallFiles(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	for i := range n {
		d := filepath.Join(dir, fmt.Sprintf("m%02d", i/20000), fmt.Sprintf("d%03d", i/200%100))
		if i%200 == 0 {
			if err := os.MkdirAll(d, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%06d.txt", i)), fmt.Appendf(nil, "file %d\n", i%100), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

func benchmarkStepScan(b *testing.B, noWatch bool) {
	benchmarkStepScanIn(b, makeProject(b, 10000), noWatch)
}

func benchmarkStepScanIn(b *testing.B, dir string, noWatch bool) {
	s, err := Open(Options{Dir: b.TempDir(), NoWatch: noWatch})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	step := func(i int) {
		cp, _ := s.Begin(ctx, dir, "ses_bench", "msg")
		if err := s.BeforeTool(ctx, cp); err != nil {
			b.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "changed.go"), fmt.Appendf(nil, "package p0 // %d\n", i), 0o644)
		if _, err := s.Finish(ctx, cp); err != nil {
			b.Fatal(err)
		}
	}
	step(-1) // the first step reads every file
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; b.Loop(); i++ {
		step(i)
	}
	reportCPU(b, cpu)
}

// reportCPU reports the process's CPU time per operation since cpu: on a
// loaded machine it says more than the time each operation took.
func reportCPU(b *testing.B, cpu time.Duration) {
	if n := cpuTime() - cpu; n > 0 && b.N > 0 {
		b.ReportMetric(float64(n.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkStepEdit measures a step whose only change is a tool's edit:
// no scan, the pre-image and the new content are kept.
func BenchmarkStepEdit(b *testing.B) {
	dir := makeProject(b, 10000)
	s, err := Open(Options{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	path := filepath.Join(dir, "pkg00", "sub00", "f00000.go")
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		cp, _ := s.Begin(ctx, dir, "ses_bench", "msg")
		if err := s.BeforeChange(ctx, "ses_bench", []string{path}); err != nil {
			b.Fatal(err)
		}
		os.WriteFile(path, fmt.Appendf(nil, "package p0 // %d\n", i), 0o644)
		if _, err := s.Finish(ctx, cp); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStepGit(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("no git")
	}
	dir := makeProject(b, 10000)
	gitDir := b.TempDir()
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"--git-dir", gitDir, "--work-tree", dir}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	step := func(i int) {
		git("add", "-A")
		git("write-tree")
		os.WriteFile(filepath.Join(dir, "pkg00", "sub00", "f00000.go"), fmt.Appendf(nil, "package p0 // %d\n", i), 0o644)
		git("add", "-A")
		git("write-tree")
	}
	step(-1)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		step(i)
	}
}

// BenchmarkStartStep measures what a new process pays for snapshots in a
// 10,000-file project whose store already holds its first snapshot: the
// store opened, one step that runs bash (one file changed) and the store
// closed, as in every run after the first.
func BenchmarkStartStep(b *testing.B) { benchmarkStartStep(b, "") }

// BenchmarkStartStepKept is BenchmarkStartStep with a keeper (the test
// binary) holding the change watcher between runs: a run takes it back
// instead of walking the project.
func BenchmarkStartStepKept(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Skip(err)
	}
	benchmarkStartStep(b, exe)
}

func benchmarkStartStep(b *testing.B, keeper string) {
	dir := makeProject(b, 10000)
	store := b.TempDir()
	ctx := context.Background()
	var last *Store
	b.Cleanup(func() { last.stopKeeper(dir) })
	run := func(i int) {
		s, err := Open(Options{Dir: store, Keeper: keeper})
		last = s
		if err != nil {
			b.Fatal(err)
		}
		cp, _ := s.Begin(ctx, dir, "ses_bench", "msg")
		if err := s.BeforeTool(ctx, cp); err != nil {
			b.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "pkg00", "sub00", "f00000.go"), fmt.Appendf(nil, "package p0 // %d\n", i), 0o644)
		if _, err := s.Finish(ctx, cp); err != nil {
			b.Fatal(err)
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
	run(-1) // the first snapshot reads every file
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; b.Loop(); i++ {
		run(i)
	}
	reportCPU(b, cpu)
}
