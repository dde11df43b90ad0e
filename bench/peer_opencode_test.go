package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseConfigPeer(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "opencode")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		spec     string
		wantBin  string // "" for no peer
		wantSkip bool
		wantErr  bool
	}{
		{spec: ""},
		{spec: bin, wantBin: bin},
		{spec: bin + ".missing", wantSkip: true},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			p, skip, err := parseConfigPeer(tt.spec)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v, want error %v", err, tt.wantErr)
			}
			if (skip != "") != tt.wantSkip {
				t.Errorf("skip reason %q, want one: %v", skip, tt.wantSkip)
			}
			switch {
			case tt.wantBin == "" && p != nil:
				t.Errorf("peer %+v, want none", p)
			case tt.wantBin != "" && (p == nil || p.bin != tt.wantBin || p.name != "opencode"):
				t.Errorf("peer %+v, want opencode at %s", p, tt.wantBin)
			case p != nil && !slices.Contains(p.env, "OPENCODE_DISABLE_MODELS_FETCH=1"):
				t.Errorf("peer environment %v lets it fetch the model catalogue", p.env)
			}
		})
	}
}

func TestConfigJSONModel(t *testing.T) {
	t.Parallel()
	tests := []struct{ model, want string }{
		{"", "model"},
		{"claude-sonnet-4-5", "claude-sonnet-4-5"},
	}
	for _, tt := range tests {
		var cfg struct {
			Model    string `json:"model"`
			Provider map[string]struct {
				NPM    string                     `json:"npm"`
				Models map[string]json.RawMessage `json:"models"`
			} `json:"provider"`
		}
		if err := json.Unmarshal([]byte(configJSON("anthropic", tt.model, "http://m", "http://t")), &cfg); err != nil {
			t.Fatalf("model %q: %v", tt.model, err)
		}
		fake := cfg.Provider["fake"]
		if cfg.Model != "fake/"+tt.want || fake.Models[tt.want] == nil || fake.NPM != "@ai-sdk/anthropic" {
			t.Errorf("model %q: config names %q with models %v over %s", tt.model, cfg.Model, fake.Models, fake.NPM)
		}
	}
}

func TestCostRatio(t *testing.T) {
	t.Parallel()
	own := []result{{inputCost: 8000}, {inputCost: 7000}, {inputCost: 9000}}
	theirs := []result{{inputCost: 16000}, {inputCost: 20000}, {inputCost: 18000}}
	got := costRatio("task-8", "opencode", own, theirs)
	if !strings.Contains(got, "0.44×") || !strings.Contains(got, "8.0k against 18.0k") {
		t.Errorf("costRatio = %q, want the ratio of the medians 8.0k/18.0k", got)
	}
	if got := costRatio("task-8", "opencode", own, []result{{}}); !strings.Contains(got, "no input tokens") {
		t.Errorf("costRatio with nothing from the peer = %q", got)
	}
}
