package app

import (
	"fmt"
	"log/slog"
	"net/http"

	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/tool"
)

// searchService returns the search service of the websearch and codesearch
// tools, or nil when the config's search section is unset or no key is
// found (the tools are then absent; a configured section without a key is
// logged). The key is search.apiKey, else EXA_API_KEY.
func searchService(cfg config.Search, getenv func(string) string, log *slog.Logger) (*tool.Search, error) {
	if cfg == (config.Search{}) {
		return nil, nil
	}
	switch cfg.Provider {
	case "", "exa":
	default:
		return nil, fmt.Errorf("search.provider %q is not supported: the search service codeloop speaks is exa", cfg.Provider)
	}
	key := cfg.APIKey
	if key == "" {
		key = getenv("EXA_API_KEY")
	}
	if key == "" {
		log.Warn("search is configured without an API key, so websearch and codesearch are off: set search.apiKey or EXA_API_KEY")
		return nil, nil
	}
	return tool.NewSearch(cfg.BaseURL, key, &http.Client{Transport: llm.ProxyTransport(getenv)}), nil
}
