package session

import (
	"context"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/fakellm"
	"github.com/codeloop/codeloop/internal/hook"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/store"
)

// noticeHooks has Notification hooks only, and hands over each run.
type noticeHooks struct{ ran chan hook.Input }

func (h noticeHooks) Has(event string) bool { return event == hook.Notification }

func (h noticeHooks) Run(_ context.Context, in hook.Input) hook.Result {
	h.ran <- in
	return hook.Result{}
}

// TestNotificationHooks: a permission asked on the bus runs the
// Notification hooks with a message naming what is asked.
func TestNotificationHooks(t *testing.T) {
	st, err := store.Open(t.Context(), ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b := bus.New(time.Second)
	h := noticeHooks{ran: make(chan hook.Input, 1)}
	eng, err := New(Config{
		Sessions: NewSessions(st, b, "test"), Bus: b, Agents: StaticAgents{BuildAgent()}, Hooks: h,
		Models: &testModels{main: fakellm.NewScripted("fake"), small: fakellm.NewScripted("fake")},
	})
	if err != nil {
		t.Fatal(err)
	}
	b.Publish(t.Context(), bus.Event{Type: bus.PermissionAsked, SessionID: "ses_1",
		Properties: permission.Request{SessionID: "ses_1", Permission: "bash", Patterns: []string{"git push", "rm x"}}})
	var in hook.Input
	select {
	case in = <-h.ran:
	case <-t.Context().Done():
		t.Fatal("no Notification hook ran")
	}
	want := hook.Input{Event: hook.Notification, SessionID: "ses_1", Title: "Permission needed",
		Message: "codeloop needs your permission to use bash (git push, rm x)", NotificationType: "permission_prompt"}
	if in.Event != want.Event || in.SessionID != want.SessionID || in.Message != want.Message ||
		in.Title != want.Title || in.NotificationType != want.NotificationType {
		t.Errorf("Notification input %+v, want %+v", in, want)
	}
	eng.Close()
}
