package local

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"testing"

	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/hook"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/session"
	"github.com/codeloop/codeloop/internal/tool"
)

// notCarried are the bus events that no front end receives: they serve
// the engine's own subscribers.
var notCarried = map[string]string{
	bus.CommandExecuted:    "the command's turn is reported by its messages",
	bus.MCPToolsChanged:    "tools are listed per step",
	bus.FileEdited:         "edits are reported by their tool parts",
	bus.InstallationUpdate: "not published",
}

// busEventNames reads the event names declared in package bus, so that an
// event added there without a conversion fails this test.
func busEventNames(t *testing.T) map[string]string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(file), "..", "..", "bus", "bus.go")
	f, err := parser.ParseFile(token.NewFileSet(), src, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			for i, n := range v.Names {
				if lit, ok := v.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					val, _ := strconv.Unquote(lit.Value)
					out[n.Name] = val
				}
			}
		}
	}
	return out
}

// TestEveryEventConverts publishes a value of every event the engine
// publishes and checks that it converts for the in-process front ends, and
// survives the HTTP stream's encoding unchanged for the remote ones.
func TestEveryEventConverts(t *testing.T) {
	info := session.Info{ID: "ses_1", ProjectID: "p", Directory: "/d", Title: "t"}
	events := map[string]any{
		bus.SessionCreated:    session.SessionEvent{Info: info},
		bus.SessionUpdated:    session.SessionEvent{Info: info},
		bus.SessionDeleted:    session.SessionEvent{Info: info},
		bus.SessionStatus:     session.StatusEvent{SessionID: "ses_1", Status: session.Status{Type: session.StatusBusy}},
		bus.SessionError:      session.ErrorEvent{SessionID: "ses_1", Error: message.NewError(message.ErrAborted, "x")},
		bus.SessionCompacted:  session.CompactedEvent{SessionID: "ses_1"},
		bus.SessionIdle:       session.IdleEvent{SessionID: "ses_1"},
		bus.TurnEnded:         session.TurnEndedEvent{SessionID: "ses_1", Reason: session.TurnMaxSteps},
		bus.MessageUpdated:    session.MessageEvent{Info: message.Info{ID: "msg_1", SessionID: "ses_1", Role: message.RoleUser}},
		bus.MessageRemoved:    session.MessageRemovedEvent{SessionID: "ses_1", MessageID: "msg_1"},
		bus.PartUpdated:       session.PartEvent{Part: &message.TextPart{PartBase: message.PartBase{ID: "prt_1", SessionID: "ses_1", MessageID: "msg_1"}, Text: "x"}},
		bus.PartDelta:         session.DeltaEvent{SessionID: "ses_1", MessageID: "msg_1", PartID: "prt_1", Field: "text", Delta: "x"},
		bus.PartRemoved:       session.PartRemovedEvent{SessionID: "ses_1", MessageID: "msg_1", PartID: "prt_1"},
		bus.PermissionAsked:   permission.Request{ID: "per_1", SessionID: "ses_1", Permission: "bash", Patterns: []string{"ls"}},
		bus.PermissionReplied: permission.Replied{SessionID: "ses_1", RequestID: "per_1", Reply: permission.ReplyOnce},
		bus.QuestionAsked:     tool.QuestionRequest{ID: "que_1", SessionID: "ses_1"},
		bus.QuestionReplied:   tool.QuestionReply{SessionID: "ses_1", RequestID: "que_1", Answers: [][]string{{"a"}}},
		bus.QuestionRejected:  tool.QuestionRejection{SessionID: "ses_1", RequestID: "que_1"},
		bus.TodoUpdated:       tool.TodoUpdated{SessionID: "ses_1"},
		"hook.notice":         hook.Notice{SessionID: "ses_1", Event: "Stop", Text: "x"},
	}
	for name, value := range busEventNames(t) {
		if _, ok := events[value]; !ok && notCarried[value] == "" {
			t.Errorf("bus.%s (%q): no conversion is tested, and it is not listed as not carried", name, value)
		}
	}
	for typ, props := range events {
		out := convertEvent(bus.Event{Type: typ, SessionID: "ses_1", Properties: props})
		if out == nil {
			t.Errorf("%s: %T does not convert", typ, props)
			continue
		}
		if out.Type() != typ {
			t.Errorf("%s converts to a %s event", typ, out.Type())
		}
		if out.Session() != "ses_1" {
			t.Errorf("%s: session %q", typ, out.Session())
		}
		data, err := client.MarshalEvent(out)
		if err != nil {
			t.Errorf("%s: %v", typ, err)
			continue
		}
		back, err := client.UnmarshalEvent(data)
		if err != nil || back == nil {
			t.Errorf("%s: does not decode from the stream: %v", typ, err)
			continue
		}
		if !reflect.DeepEqual(back, out) {
			t.Errorf("%s: round trip\n got %#v\nwant %#v", typ, back, out)
		}
	}
}
