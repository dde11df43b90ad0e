package wire

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/client"
)

// TestOpenCodeRoundTrip: providers and agents survive OpenCode's shapes
// unchanged, as the remote client reads them back.
func TestOpenCodeRoundTrip(t *testing.T) {
	temp := 0.2
	p := client.Provider{ID: "anthropic", Name: "Anthropic", Source: "env", Env: []string{"ANTHROPIC_API_KEY"}, Models: []client.Model{
		{ID: "a-model", ProviderID: "anthropic", Name: "A", Family: "a", Limit: client.ModelLimit{Context: 200000, Input: 100000, Output: 8000},
			Cost:      client.ModelCost{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75},
			Reasoning: true, ToolCall: true, Attachment: true, Temperature: true, Variants: []string{"high", "low"}, Status: "beta",
			ReleaseDate: "2025-01-01", Modalities: &client.Modalities{Input: []string{"text", "image", "pdf"}, Output: []string{"text"}},
			NPM: "@ai-sdk/anthropic", APIURL: "https://example.com/v1"},
		{ID: "b-model", ProviderID: "anthropic", Name: "B"},
	}}
	a := client.Agent{Name: "review", Description: "d", Mode: "subagent", Native: true, Model: "anthropic/a-model", Variant: "high",
		Color: "#fff", Steps: 5, Temperature: &temp, Permission: []client.PermissionRule{{Permission: "edit", Pattern: "*", Action: "deny"}},
		Options: map[string]any{"x": "y"}}
	var gotP Provider
	roundTrip(t, ToProvider(p), &gotP)
	if got := gotP.Client(); !reflect.DeepEqual(got, p) {
		t.Errorf("provider came back as\n%+v\nwant\n%+v", got, p)
	}
	var gotA Agent
	roundTrip(t, ToAgent(a), &gotA)
	if got := gotA.Client(); !reflect.DeepEqual(got, a) {
		t.Errorf("agent came back as\n%+v\nwant\n%+v", got, a)
	}
	b, _ := json.Marshal(ToProvider(p))
	for _, want := range []string{`"source":"env"`, `"models":{"a-model":{`, `"cache":{"read":0.3,"write":3.75}`, `"status":"active"`,
		`"input":{"text":true,"audio":false,"image":true,"video":false,"pdf":true}`, `"variants":{"high":{},"low":{}}`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("provider %s lacks %s", b, want)
		}
	}
}

func roundTrip(t *testing.T, v, out any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
}
