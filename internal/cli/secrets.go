package cli

import (
	"encoding/json"
	"net/url"
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

// maskLine masks what looks secret in a line that shows a command or a URL:
// the value of a flag or key=value pair named like a secret (--token X,
// API_KEY=X, ?api_key=X).
func maskLine(s string) string {
	words := strings.Split(s, " ")
	for i := 0; i < len(words); i++ {
		w := words[i]
		if u, err := url.Parse(w); err == nil && u.RawQuery != "" {
			q := u.Query()
			for k, vs := range q {
				if isSecretKey(k) {
					for j := range vs {
						vs[j] = llm.Mask(vs[j])
					}
				}
			}
			u.RawQuery = q.Encode()
			words[i] = u.String()
			continue
		}
		name := strings.TrimLeft(w, "-")
		if k, v, ok := strings.Cut(name, "="); ok && isSecretKey(k) && v != "" {
			words[i] = w[:len(w)-len(v)] + llm.Mask(v)
			continue
		}
		if strings.HasPrefix(w, "-") && isSecretKey(name) && i+1 < len(words) {
			words[i+1] = llm.Mask(words[i+1])
			i++
		}
	}
	return strings.Join(words, " ")
}
