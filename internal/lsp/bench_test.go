package lsp

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// BenchmarkDiagnoseGopls measures what diagnostics add to an edit of a
// small Go module with gopls running: sending the change and waiting for
// the errors. It reports the 95th percentile as p95-ms.
func BenchmarkDiagnoseGopls(b *testing.B) {
	if testing.Short() {
		b.Skip("starts gopls")
	}
	needGopls(b)
	dir := b.TempDir()
	writeFile(b, filepath.Join(dir, "go.mod"), "module example.com/m\n\ngo 1.22\n")
	writeFile(b, filepath.Join(dir, "util.go"), "package main\n\n// Twice doubles n.\nfunc Twice(n int) int { return 2 * n }\n")
	mainGo := filepath.Join(dir, "main.go")
	good := "package main\n\nfunc main() {\n\tprintln(Twice(2))\n}\n"
	bad := "package main\n\nfunc main() {\n\tvar s string = Twice(2)\n\tprintln(s)\n}\n"
	writeFile(b, mainGo, good)
	m := New(Options{Servers: Builtins(), Worktree: dir})
	defer m.Close()
	ctx := context.Background()
	m.Diagnose(ctx, []string{mainGo}) // start gopls and load the module
	var took []time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		text := good
		if i%2 == 0 {
			text = bad
		}
		writeFile(b, mainGo, text)
		start := time.Now()
		out := m.Diagnose(ctx, []string{mainGo})
		took = append(took, time.Since(start))
		if (i%2 == 0) != (out != "") {
			b.Fatalf("edit %d: Diagnose = %q", i, out)
		}
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)*95/100].Milliseconds()), "p95-ms")
}

// BenchmarkDiagnoseNoServer measures Diagnose for a file no installed
// server serves: what an edit pays when no server applies.
func BenchmarkDiagnoseNoServer(b *testing.B) {
	dir := b.TempDir()
	p := filepath.Join(dir, "notes.txt")
	writeFile(b, p, "x\n")
	m := New(Options{Servers: Builtins(), Worktree: dir})
	defer m.Close()
	for b.Loop() {
		if out := m.Diagnose(context.Background(), []string{p}); out != "" {
			b.Fatal(out)
		}
	}
}

// BenchmarkDiagnoseGoplsCold measures the first edit of a session: gopls
// starts, loads the module and reports.
func BenchmarkDiagnoseGoplsCold(b *testing.B) {
	if testing.Short() {
		b.Skip("starts gopls")
	}
	needGopls(b)
	dir := b.TempDir()
	writeFile(b, filepath.Join(dir, "go.mod"), "module example.com/m\n\ngo 1.22\n")
	mainGo := filepath.Join(dir, "main.go")
	writeFile(b, mainGo, "package main\n\nfunc main() {\n\tvar s string = 1\n\tprintln(s)\n}\n")
	for b.Loop() {
		m := New(Options{Servers: Builtins(), Worktree: dir})
		if out := m.Diagnose(context.Background(), []string{mainGo}); out == "" {
			b.Fatal("no diagnostics at the first edit")
		}
		b.StopTimer()
		m.Close()
		b.StartTimer()
	}
}
