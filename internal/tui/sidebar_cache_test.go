package tui

import (
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/client"
)

// TestSidebarCacheShare checks that the sidebar shows the share of the
// newest answer's input read from the prompt cache, and nothing about the
// cache when none was read.
func TestSidebarCacheShare(t *testing.T) {
	tests := []struct {
		name   string
		tokens client.Tokens
		want   string
	}{
		{"mostly read", client.Tokens{Input: 10, Output: 5, Cache: client.TokensCache{Read: 970, Write: 20}}, "97% of the input read from cache"},
		{"nothing read", client.Tokens{Input: 900, Output: 5, Cache: client.TokensCache{Write: 100}}, ""},
	}
	for _, tt := range tests {
		m := testModel(t, 200, 60)
		m.Update(sessionMsg{sess: goldenSession()})
		tok := tt.tokens
		m.applyInfo(client.MessageInfo{ID: "msg_a", SessionID: sessID, Role: client.RoleAssistant, Tokens: &tok})
		side := strings.Join(m.sidebar(60), "\n")
		if tt.want != "" && !strings.Contains(side, tt.want) {
			t.Errorf("%s: sidebar lacks %q:\n%s", tt.name, tt.want, side)
		}
		if tt.want == "" && strings.Contains(side, "from cache") {
			t.Errorf("%s: sidebar speaks of the cache:\n%s", tt.name, side)
		}
	}
}
