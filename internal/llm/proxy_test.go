package llm

import (
	"net/http"
	"testing"
)

func TestProxyFunc(t *testing.T) {
	env := map[string]string{"HTTPS_PROXY": "http://secure:3128", "http_proxy": "plain:8080", "NO_PROXY": ".internal,example.org"}
	getenv := func(k string) string { return env[k] }
	tests := []struct{ url, want string }{
		{"https://api.anthropic.com/v1/messages", "http://secure:3128"},
		{"http://models.example.com/v1", "http://plain:8080"},
		{"https://git.internal/x", ""},
		{"https://example.org/", ""},
		{"http://localhost:11434/api/tags", ""},
		{"http://127.0.0.1:1234/v1/models", ""},
	}
	fn := ProxyFunc(getenv)
	for _, tt := range tests {
		req, err := http.NewRequest(http.MethodGet, tt.url, nil)
		if err != nil {
			t.Fatal(err)
		}
		u, err := fn(req)
		got := ""
		if u != nil {
			got = u.String()
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: proxy %q, %v; want %q", tt.url, got, err, tt.want)
		}
	}
}

func TestDescribeProxy(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{nil, "none"},
		{map[string]string{"HTTPS_PROXY": "http://ann:s3cret@proxy:3128", "NO_PROXY": "localhost"},
			"https: http://ann:***@proxy:3128 (HTTPS_PROXY); no proxy for localhost (NO_PROXY)"},
		{map[string]string{"https_proxy": "http://proxy:3128", "HTTP_PROXY": "http://proxy:80"},
			"https: http://proxy:3128 (https_proxy), http: http://proxy:80 (HTTP_PROXY)"},
	}
	for _, tt := range tests {
		if got := DescribeProxy(func(k string) string { return tt.env[k] }); got != tt.want {
			t.Errorf("%v: %q, want %q", tt.env, got, tt.want)
		}
	}
}
