package acp_test

import (
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// TestStepLimit ends a turn that used all of the agent's steps with
// max_turn_requests, and one that answered within them with end_turn.
func TestStepLimit(t *testing.T) {
	const readTwice = `
step
call call_1 read {"filePath":"a.txt"}
finish tool-calls
step
call call_2 read {"filePath":"a.txt"}
finish tool-calls
step
text Out of steps.
finish stop
`
	const answer = `
step
text Right away.
finish stop
`
	for _, c := range []struct {
		name, script, extra string
		want                sdk.StopReason
	}{
		{"limit reached", readTwice, `"agent": {"build": {"steps": 2}}`, sdk.StopReasonMaxTurnRequests},
		{"within the limit", answer, `"agent": {"build": {"steps": 2}}`, sdk.StopReasonEndTurn},
		{"no limit", readTwice, "", sdk.StopReasonEndTurn},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, c.script, c.extra, map[string]string{"a.txt": "x\n"})
			sess := r.newSession()
			if got := r.prompt(sess.SessionId, sdk.TextBlock("read a.txt")).StopReason; got != c.want {
				t.Errorf("stopReason = %q, want %q", got, c.want)
			}
		})
	}
}
