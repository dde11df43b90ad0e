// Package seed builds long sessions for the benchmarks from a real
// exported one: bench and bench/tui-long repeat an exported turn under new
// ids and import the result.
package seed

import (
	"encoding/json"

	"github.com/codeloop/codeloop/internal/id"
)

// Clone copies an exported message ({info, parts}, as `codeloop export`
// writes it) under new message and part ids, with text as the text of its
// text parts.
func Clone(m map[string]any, text string) map[string]any {
	var c map[string]any
	b, _ := json.Marshal(m)
	_ = json.Unmarshal(b, &c)
	info := c["info"].(map[string]any)
	info["id"] = id.Ascending(id.Message)
	parts, _ := c["parts"].([]any)
	for _, raw := range parts {
		part := raw.(map[string]any)
		part["id"] = id.Ascending(id.Part)
		part["messageID"] = info["id"]
		if part["type"] == "text" {
			part["text"] = text
		}
	}
	return c
}
