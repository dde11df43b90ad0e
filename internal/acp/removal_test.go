package acp_test

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/codeloop/codeloop/internal/acp"
	"github.com/codeloop/codeloop/internal/client"
)

// TestRevertRemovalsReachTheEditor reverts a session from another client,
// then prompts it through ACP: the prompt makes the revert final, and the
// editor is told which messages were taken back.
func TestRevertRemovalsReachTheEditor(t *testing.T) {
	r := newRig(t, `
step
text First answer.
finish stop
step
text Second answer.
finish stop
`, "", nil)
	sess := r.newSession()
	r.prompt(sess.SessionId, sdk.TextBlock("first"))

	other, err := openLocal(context.Background(), r.project, r.project.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ctx := r.ctx()
	msgs, err := other.Messages(ctx, string(sess.SessionId), client.MessagesOptions{})
	if err != nil || len(msgs) != 2 {
		t.Fatalf("messages: %d, %v", len(msgs), err)
	}
	if _, err := other.Revert(ctx, string(sess.SessionId), client.RevertInput{MessageID: msgs[0].Info.ID}); err != nil {
		t.Fatalf("revert: %v", err)
	}

	r.prompt(sess.SessionId, sdk.TextBlock("second"))
	r.ed.mu.Lock()
	got := strings.Join(r.ed.extensions, "\n")
	r.ed.mu.Unlock()
	for _, m := range msgs {
		if !strings.Contains(got, acp.MethodMessageRemoved) || !strings.Contains(got, `"messageId":"`+m.Info.ID+`"`) {
			t.Errorf("the editor was not told message %s (%s) was removed; extensions:\n%s", m.Info.ID, m.Info.Role, got)
		}
	}
}
