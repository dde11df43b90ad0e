package upgrade

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestNotice(t *testing.T) {
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		http.Redirect(w, r, "/r/tag/v2.0.0", http.StatusFound)
	}))
	defer srv.Close()
	state := filepath.Join(t.TempDir(), "state", "upgrade-check.json")
	day := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	o := NoticeOptions{Source: Source{BaseURL: srv.URL + "/r"}, StateFile: state, Current: "1.0.0"}
	steps := []struct {
		name      string
		now       time.Time
		current   string
		disabled  bool
		want      string
		wantAsked int32
	}{
		{"first run", day, "1.0.0", false, "codeloop v2.0.0 is available (this is 1.0.0): run codeloop upgrade", 1},
		{"same day", day.Add(3 * time.Hour), "1.0.0", false, "", 1},
		{"next day", day.Add(25 * time.Hour), "1.0.0", false, "codeloop v2.0.0 is available", 2},
		{"disabled", day.Add(50 * time.Hour), "1.0.0", true, "", 2},
		{"up to date", day.Add(75 * time.Hour), "2.0.0", false, "", 3},
	}
	for _, s := range steps {
		o.Now, o.Current, o.Disabled = s.now, s.current, s.disabled
		got, err := Notice(context.Background(), o)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if (s.want == "") != (got == "") || !strings.HasPrefix(got, s.want) {
			t.Errorf("%s: Notice = %q; want %q", s.name, got, s.want)
		}
		if n := asked.Load(); n != s.wantAsked {
			t.Errorf("%s: asked the server %d times; want %d", s.name, n, s.wantAsked)
		}
	}
}

func TestDisabled(t *testing.T) {
	tests := []struct {
		env, config string
		want        bool
	}{
		{"", "", false},
		{"", "true", false},
		{"", "notify", false},
		{"", "false", true},
		{"1", "", true},
		{"0", "", false},
		{"true", "true", true},
	}
	for _, tt := range tests {
		getenv := func(string) string { return tt.env }
		if got := Disabled(getenv, tt.config); got != tt.want {
			t.Errorf("Disabled(env %q, config %q) = %v; want %v", tt.env, tt.config, got, tt.want)
		}
	}
}
