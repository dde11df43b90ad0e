package wire

import "testing"

func TestRoutePath(t *testing.T) {
	tests := []struct {
		r      Route
		params []string
		want   string
	}{
		{PathGet, nil, "/path"},
		{SessionGet, []string{"ses_1"}, "/session/ses_1"},
		{SessionMessage, []string{"ses_1", "msg_2"}, "/session/ses_1/message/msg_2"},
		{SessionGet, []string{"a/b c"}, "/session/a%2Fb%20c"},
		{SessionGet, []string{"../x"}, "/session/..%2Fx"},
		{PermissionRespond, []string{"s"}, "/session/s/permissions/"},
	}
	for _, tt := range tests {
		if got := tt.r.Path(tt.params...); got != tt.want {
			t.Errorf("%s.Path(%q) = %q, want %q", tt.r.ID, tt.params, got, tt.want)
		}
	}
}

// TestRoutesUnique checks that no two routes share an id or a method and
// pattern.
func TestRoutesUnique(t *testing.T) {
	ids, keys := map[string]bool{}, map[string]bool{}
	for _, r := range Routes() {
		if ids[r.ID] || keys[r.Method+" "+r.Pattern] {
			t.Errorf("route %s %s (%s) is listed twice", r.Method, r.Pattern, r.ID)
		}
		ids[r.ID], keys[r.Method+" "+r.Pattern] = true, true
	}
}

// TestUnsupportedRoutes checks that every unsupported route says why and
// that none is listed twice.
func TestUnsupportedRoutes(t *testing.T) {
	ids, keys := map[string]bool{}, map[string]bool{}
	for _, u := range Unsupported() {
		if ids[u.ID] || keys[u.Method+" "+u.Pattern] {
			t.Errorf("unsupported route %s %s (%s) is listed twice", u.Method, u.Pattern, u.ID)
		}
		ids[u.ID], keys[u.Method+" "+u.Pattern] = true, true
		if len(u.Reason) < 20 || u.Summary != "Not supported: "+u.Reason {
			t.Errorf("%s: reason %q, summary %q", u.ID, u.Reason, u.Summary)
		}
	}
}
