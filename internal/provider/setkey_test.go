package provider

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestSetKey: a key stored while the registry is in use lands in
// auth.json and makes its provider usable at once.
func TestSetKey(t *testing.T) {
	r := newRegistry(t, setup{})
	if got := ids(t, r); len(got) != 0 {
		t.Fatalf("providers before: %v", got)
	}
	if err := r.SetKey("deepseek", "  sk-deep  "); err != nil {
		t.Fatal(err)
	}
	if got := ids(t, r); !slices.Equal(got, []string{"deepseek:auth"}) {
		t.Errorf("providers after the key = %v, want deepseek from auth.json", got)
	}
	if _, _, err := r.Lookup(context.Background(), "deepseek/deepseek-chat"); err != nil && !strings.Contains(err.Error(), "deepseek-chat") {
		t.Errorf("lookup: %v", err)
	}
	b, err := os.ReadFile(r.opts.Dirs.Auth())
	if err != nil || !strings.Contains(string(b), `"sk-deep"`) {
		t.Errorf("auth.json = %s, %v", b, err)
	}
	if err := r.SetKey("groq", " "); err == nil {
		t.Error("an empty key was stored")
	}
}
