package hook

import (
	"context"
	"testing"
)

// BenchmarkRunNoMatch is the cost a tool call pays for hooks that do not
// match it.
func BenchmarkRunNoMatch(b *testing.B) {
	r := NewRunner(Build([]Source{{Origin: "s", Hooks: one(PreToolUse, "Edit|Write", "exit 2", 0)}}, false),
		Options{ProjectDir: b.TempDir()})
	in := bashCall("ls")
	for b.Loop() {
		r.Run(context.Background(), in)
	}
}

// BenchmarkRunShellHook is the cost of one matching hook: a shell that
// reads its input and exits.
func BenchmarkRunShellHook(b *testing.B) {
	r := NewRunner(Build([]Source{{Origin: "s", Hooks: one(PreToolUse, "Bash", "cat >/dev/null", 0)}}, false),
		Options{ProjectDir: b.TempDir()})
	in := bashCall("ls")
	for b.Loop() {
		r.Run(context.Background(), in)
	}
}
