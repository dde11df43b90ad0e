package llm

import (
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/net/http/httpproxy"
)

// proxyConfig reads HTTPS_PROXY, HTTP_PROXY and NO_PROXY (or their
// lower-case names) through getenv.
func proxyConfig(getenv func(string) string) *httpproxy.Config {
	first := func(names ...string) string {
		for _, n := range names {
			if v := getenv(n); v != "" {
				return v
			}
		}
		return ""
	}
	return &httpproxy.Config{
		HTTPProxy:  first("HTTP_PROXY", "http_proxy"),
		HTTPSProxy: first("HTTPS_PROXY", "https_proxy"),
		NoProxy:    first("NO_PROXY", "no_proxy"),
	}
}

// ProxyFunc returns the proxy choice of the environment getenv reads, as
// http.ProxyFromEnvironment makes it from the process's: HTTPS_PROXY for
// https URLs, HTTP_PROXY for http ones, none for the hosts NO_PROXY names
// and for localhost and loopback addresses.
func ProxyFunc(getenv func(string) string) func(*http.Request) (*url.URL, error) {
	fn := proxyConfig(getenv).ProxyFunc()
	return func(r *http.Request) (*url.URL, error) { return fn(r.URL) }
}

// ProxyTransport returns a copy of http.DefaultTransport that goes through
// the proxy the environment getenv reads names.
func ProxyTransport(getenv func(string) string) *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = ProxyFunc(getenv)
	return tr
}

// DescribeProxy says which proxy the environment getenv reads names, with
// any password in it masked: "none" or, say, "https: http://proxy:3128
// (HTTPS_PROXY); no proxy for localhost,.internal (NO_PROXY)".
func DescribeProxy(getenv func(string) string) string {
	var parts []string
	for _, p := range []struct{ scheme, upper, lower string }{
		{"https", "HTTPS_PROXY", "https_proxy"}, {"http", "HTTP_PROXY", "http_proxy"},
	} {
		name, v := p.upper, getenv(p.upper)
		if v == "" {
			name, v = p.lower, getenv(p.lower)
		}
		if v != "" {
			parts = append(parts, p.scheme+": "+maskProxy(v)+" ("+name+")")
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	out := strings.Join(parts, ", ")
	if v := getenv("NO_PROXY"); v != "" {
		out += "; no proxy for " + v + " (NO_PROXY)"
	} else if v := getenv("no_proxy"); v != "" {
		out += "; no proxy for " + v + " (no_proxy)"
	}
	return out
}

// maskProxy hides the password of a proxy URL.
func maskProxy(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		if i := strings.LastIndex(s, "@"); i >= 0 {
			return "***" + s[i:]
		}
		return s
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
		return strings.Replace(u.String(), ":xxxxx@", ":***@", 1)
	}
	return u.String()
}
