package server

import (
	"net/http"
	"testing"
)

// stubWeb is a front end whose one valid session cookie is "good".
type stubWeb struct{}

func (stubWeb) Prefix() string { return "/web/" }

func (stubWeb) Authenticated(r *http.Request) bool {
	c, err := r.Cookie("codeloop_web")
	return err == nil && c.Value == "good"
}

func (stubWeb) ServeHTTP(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) }

// TestWebCookie: with a front end, its pages are served without the
// token, the API answers under the prefix too, and the session cookie
// stands for the token only from the page's own origin; without one, the
// cookie is nothing and the page's origin is foreign.
func TestWebCookie(t *testing.T) {
	withWeb := newRig(t, "", Options{Web: stubWeb{}})
	without := newRig(t, "", Options{})
	cases := []struct {
		name, method, path string
		header             map[string]string
		web, plain         int
	}{
		{"the page", "GET", "/web/", nil, http.StatusTeapot, 401},
		{"the page without the slash", "GET", "/web", nil, http.StatusTeapot, 401},
		{"the API under the prefix, no credential", "GET", "/web/api/session", nil, 401, 401},
		{"a read with the cookie", "GET", "/web/api/session", map[string]string{"Cookie": "codeloop_web=good"}, 200, 401},
		{"a read at the root with the cookie", "GET", "/session", map[string]string{"Cookie": "codeloop_web=good"}, 200, 401},
		{"a wrong cookie", "GET", "/web/api/session", map[string]string{"Cookie": "codeloop_web=bad"}, 401, 401},
		{"a change without Origin", "POST", "/web/api/session", map[string]string{"Cookie": "codeloop_web=good"}, 401, 401},
		{"a change from the page", "POST", "/web/api/session", map[string]string{"Cookie": "codeloop_web=good", "Origin": "own"}, 200, 403},
		{"a change from another origin", "POST", "/web/api/session", map[string]string{"Cookie": "codeloop_web=good", "Origin": "http://127.0.0.1:1"}, 403, 403},
		{"a read from another site", "GET", "/web/api/session", map[string]string{"Cookie": "codeloop_web=good", "Sec-Fetch-Site": "cross-site"}, 401, 401},
		{"a read from the same site", "GET", "/web/api/session", map[string]string{"Cookie": "codeloop_web=good", "Sec-Fetch-Site": "same-site"}, 401, 401},
		{"a read from the page", "GET", "/web/api/session", map[string]string{"Cookie": "codeloop_web=good", "Sec-Fetch-Site": "same-origin"}, 200, 401},
		{"the cookie beside a wrong token", "GET", "/web/api/session", map[string]string{"Cookie": "codeloop_web=good", "Authorization": "Bearer nope"}, 401, 401},
	}
	for _, tc := range cases {
		for _, r := range []struct {
			rig  *rig
			want int
		}{{withWeb, tc.web}, {without, tc.plain}} {
			req := r.rig.request(tc.method, tc.path, "")
			req.Header.Del("Authorization")
			for k, v := range tc.header {
				if v == "own" {
					v = "http://" + r.rig.host
				}
				req.Header.Set(k, v)
			}
			if got, body := r.rig.do(req); got != r.want {
				t.Errorf("%s (web %v): %d, want %d: %s", tc.name, r.rig == withWeb, got, r.want, body)
			}
		}
	}
	req := withWeb.request("GET", "/web/api/session", "")
	resp, err := withWeb.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("Content-Security-Policy") == "" {
		t.Errorf("the API's answers to the page lack nosniff or a CSP: %v", resp.Header)
	}
}
