package local_test

import (
	"testing"

	"github.com/codeloop/codeloop/internal/client/clienttest"
)

// TestPathReportsTrust checks that the project's trust, with what its
// files would run, reaches every front end through Path (the server's
// GET /path, ACP's session _meta).
func TestPathReportsTrust(t *testing.T) {
	p := clienttest.NewProject(t, "", `"shell": "/tmp/not-a-shell"`, nil)
	c := open(t, p)
	got, err := c.Path(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	tr := got.Trust
	if tr == nil || tr.State != "not trusted" {
		t.Fatalf("trust = %+v, want not trusted", tr)
	}
	found := false
	for _, it := range tr.HeldBack {
		found = found || (it.Kind == "shell" && it.Detail == "/tmp/not-a-shell" && it.Line > 0 && it.File != "")
	}
	if !found {
		t.Errorf("held back %+v, want the shell with its file and line", tr.HeldBack)
	}
}
