package tool

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
)

const page = `<!doctype html><html><head><title>T</title><style>body{color:red}</style>
<script>var secret = "do not show";</script></head>
<body><h1>Heading</h1><p>Some <b>bold</b> text and a <a href="/next">link</a>.</p>
<ul><li>one</li><li>two</li></ul><noscript>enable js</noscript></body></html>`

func webServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(page))
	})
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("just text <b>not html</b>"))
	})
	mux.HandleFunc("/img", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(pngBytes(t))
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		chunk := strings.Repeat("x", 64*1024)
		for range WebFetchMaxBytes/len(chunk) + 2 {
			if _, err := w.Write([]byte(chunk)); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	mux.HandleFunc("/challenge", func(w http.ResponseWriter, r *http.Request) {
		if r.UserAgent() != "codeloop" {
			w.Header().Set("Cf-Mitigated", "challenge")
			w.WriteHeader(http.StatusForbidden)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("let through"))
	})
	mux.HandleFunc("/accept", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte(r.Header.Get("Accept")))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestWebFetch(t *testing.T) {
	t.Parallel()
	srv := webServer(t)
	tests := []struct {
		name            string
		input           map[string]any
		contains        []string
		absent          []string
		errText         string
		wantAttachments int
	}{
		{name: "markdown by default", input: map[string]any{"url": srv.URL + "/page"},
			contains: []string{"# Heading", "Some **bold** text and a [link](" + srv.URL + "/next).", "- one\n- two"},
			absent:   []string{"secret", "color:red", "<p>"}},
		{name: "text strips scripts and styles", input: map[string]any{"url": srv.URL + "/page", "format": "text"},
			contains: []string{"Heading\nSome bold text and a link.\none\ntwo"}, absent: []string{"secret", "color", "enable js", "<"}},
		{name: "html as it is", input: map[string]any{"url": srv.URL + "/page", "format": "html"}, contains: []string{page}},
		{name: "plain text left alone", input: map[string]any{"url": srv.URL + "/plain"}, contains: []string{"just text <b>not html</b>"}},
		{name: "markdown asked for first", input: map[string]any{"url": srv.URL + "/accept"}, contains: []string{"text/markdown;q=1.0"}},
		{name: "image attachment", input: map[string]any{"url": srv.URL + "/img"}, contains: []string{"Image fetched successfully"}, wantAttachments: 1},
		{name: "challenge retried", input: map[string]any{"url": srv.URL + "/challenge"}, contains: []string{"let through"}},
		{name: "too large", input: map[string]any{"url": srv.URL + "/big"}, errText: "response too large (exceeds 5MB limit)"},
		{name: "status", input: map[string]any{"url": srv.URL + "/missing"}, errText: "request failed with status code: 404"},
		{name: "timeout", input: map[string]any{"url": srv.URL + "/slow", "timeout": 1}, errText: "request timed out after 1s"},
		{name: "scheme", input: map[string]any{"url": "file:///etc/passwd"}, errText: "URL must start with http:// or https://"},
		{name: "format enum", input: map[string]any{"url": srv.URL + "/page", "format": "pdf"}, errText: "invalid arguments"},
	}
	env := testEnv(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := run(t, env, "webfetch", t.TempDir(), tt.input)
			if tt.errText != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errText) {
					t.Fatalf("error %v, want %q", err, tt.errText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tt.contains {
				if !strings.Contains(res.Output, s) {
					t.Errorf("output lacks %q:\n%s", s, res.Output)
				}
			}
			for _, s := range tt.absent {
				if strings.Contains(res.Output, s) {
					t.Errorf("output has %q:\n%s", s, res.Output)
				}
			}
			if len(res.Attachments) != tt.wantAttachments {
				t.Errorf("%d attachments", len(res.Attachments))
			}
			if tt.wantAttachments > 0 {
				a := res.Attachments[0]
				if a.Mime != "image/png" || a.URL != "data:image/png;base64,"+base64.StdEncoding.EncodeToString(pngBytes(t)) {
					t.Errorf("attachment %s %.40s", a.Mime, a.URL)
				}
			}
		})
	}
}

func TestWebFetchAsksForTheURL(t *testing.T) {
	t.Parallel()
	srv := webServer(t)
	call, asker := newCall(t, "webfetch", t.TempDir(), map[string]any{"url": srv.URL + "/plain"})
	if _, err := toolByID(t, testEnv(t), "webfetch").Run(context.Background(), call); err != nil {
		t.Fatal(err)
	}
	if r := asker.requests("webfetch"); len(r) != 1 || r[0].Patterns[0] != srv.URL+"/plain" {
		t.Errorf("asks %+v", asker.asked)
	}
}

// TestWebFetchProxy fetches through the plain HTTP proxy HTTP_PROXY names,
// and past it for the hosts of NO_PROXY.
func TestWebFetchProxy(t *testing.T) {
	var seen []string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.URL.String()) // a proxied request carries the absolute URL
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("fetched through the proxy"))
	}))
	t.Cleanup(proxy.Close)
	tests := []struct {
		noProxy string
		want    []string
	}{
		{"", []string{"http://docs.example.invalid/page"}},
		{"docs.example.invalid", nil},
	}
	for _, tt := range tests {
		seen = nil
		t.Setenv("HTTP_PROXY", proxy.URL)
		t.Setenv("NO_PROXY", tt.noProxy)
		res, err := run(t, testEnv(t), "webfetch", t.TempDir(), map[string]any{"url": "http://docs.example.invalid/page"})
		if !slices.Equal(seen, tt.want) {
			t.Errorf("NO_PROXY=%q: the proxy saw %v, want %v", tt.noProxy, seen, tt.want)
		}
		if tt.want != nil && (err != nil || res.Output != "fetched through the proxy") {
			t.Errorf("NO_PROXY=%q: result %+v, %v", tt.noProxy, res, err)
		}
	}
}
