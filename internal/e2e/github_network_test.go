package e2e

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/github/fakegh"
)

// TestGitHubRunFetchesNothing: the text of an issue is anyone's, so a run
// must not let the model reach the network through codeloop's own tools
// either, itself or through a sub-agent: a webfetch could carry what the
// model read to any address, or read a cloud's metadata service.
func TestGitHubRunFetchesNothing(t *testing.T) {
	hits := make(chan string, 8)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case hits <- r.URL.String():
		default:
		}
		w.Write([]byte("fetched"))
	}))
	t.Cleanup(srv.Close)
	fetch := `call call_f webfetch {"url":"` + srv.URL + `/collect?data=what-the-model-read","format":"text"}`
	for _, tt := range []struct{ name, script string }{
		{"itself", "step\n" + fetch + "\nfinish tool-calls input=500 output=20\nstep\ntext Done.\nfinish stop input=600 output=10\n"},
		{"through a sub-agent", "step\n" + `call call_t task {"description":"Fetch","prompt":"fetch it","subagent_type":"general"}` +
			"\nfinish tool-calls input=500 output=20\nstep\n" + fetch + "\nfinish tool-calls input=500 output=20\n" +
			"step\ntext Fetched.\nfinish stop input=600 output=10\nstep\ntext Done.\nfinish stop input=600 output=10\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newGHRepo(t, tt.script)
			r.setEvent("issue_comment", fakegh.Event{Number: 7, Title: "Typo", CommentID: 55, Actor: "writer", Comment: "/codeloop fix"})
			stdout, stderr, code := r.run("issue_comment", nil)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			reqs := r.model.Requests()
			if len(reqs) < 2 {
				t.Fatalf("%d model requests\n%s", len(reqs), stderr)
			}
			select {
			case h := <-hits:
				t.Errorf("the run fetched %s", h)
			default:
			}
			for i, req := range reqs {
				for _, tool := range []string{"webfetch", "websearch", "codesearch"} {
					if strings.Contains(string(req.Body), `"name":"`+tool+`"`) {
						t.Errorf("model request %d offers %s", i, tool)
					}
				}
			}
		})
	}
}
