package app

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/config"
)

func TestSearchService(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		cfg     config.Search
		env     map[string]string
		on      bool
		err     string // in the error
		warning bool   // a warning is logged
	}{
		{name: "unset", env: map[string]string{"EXA_API_KEY": "exa-env-key"}},
		{name: "key in the config", cfg: config.Search{APIKey: "exa-cfg-key"}, on: true},
		{name: "key from the environment", cfg: config.Search{Provider: "exa"}, env: map[string]string{"EXA_API_KEY": "exa-env-key"}, on: true},
		{name: "no key", cfg: config.Search{Provider: "exa"}, warning: true},
		{name: "unknown service", cfg: config.Search{Provider: "bing", APIKey: "k"}, err: `search.provider "bing" is not supported`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log bytes.Buffer
			s, err := searchService(tt.cfg, func(k string) string { return tt.env[k] }, slog.New(slog.NewTextHandler(&log, nil)))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || (s != nil) != tt.on {
				t.Fatalf("service %v, %v; want on=%v", s, err, tt.on)
			}
			if got := strings.Contains(log.String(), "EXA_API_KEY"); got != tt.warning {
				t.Errorf("warning logged: %v, want %v\n%s", got, tt.warning, log.String())
			}
		})
	}
}
