package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParsePeer(t *testing.T) {
	tests := []struct {
		in, name, path string
		ok             bool
	}{
		{"codex", "codex", "", true},
		{"codex=/opt/codex/bin/codex", "codex", "/opt/codex/bin/codex", true},
		{"claude=/usr/bin/claude", "", "", false},
		{"", "", "", false},
	}
	for _, tt := range tests {
		name, path, err := parsePeer(tt.in)
		if (err == nil) != tt.ok || name != tt.name || path != tt.path {
			t.Errorf("parsePeer(%q) = %q, %q, %v", tt.in, name, path, err)
		}
	}
}

func TestPairRatios(t *testing.T) {
	ms := func(v int) time.Duration { return time.Duration(v) * time.Millisecond }
	pairs := [][2]result{
		{{cpu: ms(30), maxRSS: 40, maxAnon: 10, wall: ms(100)}, {cpu: ms(100), maxRSS: 100, maxAnon: 20, wall: ms(200)}},
		{{cpu: ms(50), maxRSS: 40, maxAnon: 10, wall: ms(100)}, {cpu: ms(100), maxRSS: 100, maxAnon: 40, wall: ms(400)}},
		{{cpu: ms(20), maxRSS: 40, maxAnon: 10, wall: ms(100)}, {cpu: ms(100), maxRSS: 80, maxAnon: 10, wall: ms(100)}},
	}
	row := pairRatios("chatty", pairs)
	want := map[string][3]float64{ // median, min, max
		"cpu":  {0.3, 0.2, 0.5},
		"rss":  {0.4, 0.4, 0.5},
		"anon": {0.5, 0.25, 1},
		"wall": {0.5, 0.25, 1},
	}
	if row.pairs != 3 {
		t.Errorf("pairs = %d", row.pairs)
	}
	for _, m := range row.metrics {
		w, ok := want[m.name]
		if !ok {
			continue
		}
		if !near(m.med, w[0]) || !near(m.min, w[1]) || !near(m.max, w[2]) {
			t.Errorf("%s = %v [%v–%v], want %v", m.name, m.med, m.min, m.max, w)
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestFindCodex(t *testing.T) {
	dir := t.TempDir()
	npm := filepath.Join(dir, "npm")
	native := filepath.Join(npm, "node_modules", "@openai", "codex-linux-x64", "vendor", "x86_64-unknown-linux-musl", "bin", "codex")
	if err := os.MkdirAll(filepath.Dir(native), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(native, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, want string
	}{
		{"the executable", native, native},
		{"an npm prefix", npm, native},
		{"missing", filepath.Join(dir, "nothing"), ""},
		{"a directory without it", dir, ""},
	}
	for _, tt := range tests {
		got, err := findCodex(tt.path)
		if tt.want == "" && err == nil {
			t.Errorf("%s: found %s", tt.name, got)
		}
		if tt.want != "" && (err != nil || got != tt.want) {
			t.Errorf("%s: %q, %v; want %s", tt.name, got, err, tt.want)
		}
	}
}

func TestCodexConfig(t *testing.T) {
	cfg := codexConfig("http://127.0.0.1:4000")
	for _, want := range []string{
		`base_url = "http://127.0.0.1:4000/v1"`, `wire_api = "responses"`, `model_provider = "fake"`,
		`check_for_update_on_startup = false`, "plugins = false", "remote_plugin = false",
	} {
		if !strings.Contains(cfg, want) {
			t.Errorf("config lacks %s:\n%s", want, cfg)
		}
	}
}

// TestCodexEditAndTest runs the real Codex CLI on edit-and-test against
// the fake server, where it is installed.
func TestCodexEditAndTest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Codex CLI")
	}
	p, err := newCodexPeer("")
	if err != nil {
		t.Skipf("Codex CLI is not installed: %v", err)
	}
	dir := t.TempDir()
	launcher := filepath.Join(dir, "launch")
	ctx := context.Background()
	if err := build(ctx, "./launch", launcher); err != nil {
		t.Fatal(err)
	}
	r, err := runPeerOnce(ctx, p, "edit-and-test", launcher, filepath.Join(dir, "run"))
	if err != nil {
		t.Fatal(err)
	}
	if r.requests != 4 || r.cpu <= 0 || r.maxRSS <= 0 || r.maxAnon <= 0 {
		t.Errorf("measured %s", r)
	}
	if r.cacheShare < 0.9 {
		t.Errorf("cache read share %.2f from the second request on", r.cacheShare)
	}
}
