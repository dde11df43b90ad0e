package cli

import (
	"encoding/json"
	"strings"

	"github.com/codeloop/codeloop/internal/llm"
)

// isSecretKey reports whether a config key names a secret: apiKey,
// x-api-key, Authorization, OAuth's clientSecret, a GITHUB_TOKEN in an
// environment map, and so on.
func isSecretKey(k string) bool {
	k = strings.ToLower(k)
	if k == "keys" || k == "keybinds" || strings.HasSuffix(k, "keys") && !strings.Contains(k, "api") {
		return false
	}
	for _, w := range [...]string{"key", "token", "secret", "password", "passwd", "authorization", "cookie", "credential", "bearer"} {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// maskSecrets returns v, a value decoded from JSON, with every string held
// under a secret key masked as auth list masks keys, at any depth.
func maskSecrets(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && isSecretKey(k) && s != "" {
				v[k] = llm.Mask(s)
				continue
			}
			v[k] = maskSecrets(x)
		}
	case []any:
		for i, x := range v {
			v[i] = maskSecrets(x)
		}
	}
	return v
}

// maskedJSON encodes v as indented JSON with its secrets masked.
func maskedJSON(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var tree any
	if err := json.Unmarshal(raw, &tree); err != nil {
		return nil, err
	}
	return json.MarshalIndent(maskSecrets(tree), "", "  ")
}
