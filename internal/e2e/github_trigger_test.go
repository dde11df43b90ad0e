package e2e

import (
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/github/fakegh"
)

// TestGitHubIssueTriggerWrittenByOutsider: an issue whose text holds the
// trigger word starts a run when it is opened or assigned by someone with
// write access, but only if its author has write access too. Otherwise
// anyone could plant "/codeloop" in an issue and have the run start the
// moment a maintainer assigns it to someone.
func TestGitHubIssueTriggerWrittenByOutsider(t *testing.T) {
	for _, tt := range []struct {
		name, author string
		run          bool
	}{
		{"outsider's issue", "stranger", false},
		{"reader's issue", "reader", false},
		{"writer's issue", "writer", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newGHRepo(t, `
step
call call_1 edit {"filePath":"a.txt","oldString":"teh","newString":"the"}
finish tool-calls input=500 output=20
step
text Fixed.
finish stop input=600 output=10
`)
			before := r.branches()
			r.setEvent("issues", fakegh.Event{Action: "assigned", Number: 7, Title: "Typo", IssueBody: "/codeloop fix the typo",
				Actor: "maintainer", Author: tt.author})
			stdout, stderr, code := r.run("issues", nil)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			ran := len(r.model.Requests()) > 0
			if ran != tt.run {
				t.Fatalf("the model was asked: %t, want %t\n%s", ran, tt.run, stderr)
			}
			if tt.run {
				if len(r.api.Opened()) != 1 {
					t.Errorf("opened %+v", r.api.Opened())
				}
				return
			}
			if !strings.Contains(stderr, "@"+tt.author+", who wrote the issue, cannot write") {
				t.Errorf("stderr = %s", stderr)
			}
			if r.branches() != before || len(r.api.Opened()) != 0 || len(r.api.Comments()) != 0 || len(r.api.Reactions()) != 0 {
				t.Errorf("something was done: branches %s, opened %v, comments %v, reactions %v",
					r.branches(), r.api.Opened(), r.api.Comments(), r.api.Reactions())
			}
		})
	}
}
