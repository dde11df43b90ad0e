package local

import (
	"testing"

	"github.com/codeloop/codeloop/internal/app"
	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/hook"
)

// TestConvertHookNotice: a hook's notice on the bus reaches front ends as
// a HookNoticeEvent of its session, with the notice's fields under the
// same names.
func TestConvertHookNotice(t *testing.T) {
	n := hook.Notice{SessionID: "ses_1", Event: "PostToolUse", Command: "./lint.sh", Origin: ".claude/settings.json", Error: true, Text: "timed out after 60s"}
	got := convertEvent(bus.Event{Type: app.HookNotice, SessionID: n.SessionID, Properties: n})
	e, ok := got.(client.HookNoticeEvent)
	if !ok {
		t.Fatalf("a hook notice converts to %#v", got)
	}
	if e.Session() != "ses_1" || e.String() != n.String() {
		t.Errorf("session %q, text %q; want ses_1, %q", e.Session(), e.String(), n.String())
	}
	if diff := subset("", generic(t, e), generic(t, n)); len(diff) > 0 {
		t.Errorf("the event's JSON differs from the notice's: %v", diff)
	}
}
