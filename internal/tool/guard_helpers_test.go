package tool

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/approval"
	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/permission"
)

// allowAll is a catch-all allow rule.
var allowAll = permission.Ruleset{{Permission: "*", Pattern: "*", Action: permission.Allow}}

// userAsker is a real permission service whose asks a stand-in user
// answers with reply (nothing is asked under opts.NonInteractive). It
// records the requests made.
type userAsker struct {
	permission.Asker
	mu    sync.Mutex
	asked []permission.Request
	reply permission.ReplyKind
}

// setReply changes the stand-in user's answer from now on.
func (u *userAsker) setReply(r permission.ReplyKind) {
	u.mu.Lock()
	u.reply = r
	u.mu.Unlock()
}

// Ask records req and asks the service.
func (u *userAsker) Ask(ctx context.Context, req permission.Request) error {
	u.mu.Lock()
	u.asked = append(u.asked, req)
	u.mu.Unlock()
	return u.Asker.Ask(ctx, req)
}

// seen returns the requests made, in order.
func (u *userAsker) seen() []permission.Request {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]permission.Request(nil), u.asked...)
}

func newUserAsker(t *testing.T, opts approval.Options, rules permission.Ruleset, reply permission.ReplyKind) *userAsker {
	t.Helper()
	b := bus.New(time.Second)
	svc := approval.NewService(b, nil, opts)
	sub := b.Subscribe(bus.Filter{Types: []string{bus.PermissionAsked}}, 16)
	u := &userAsker{Asker: svc.Asker(rules), reply: reply}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-ctx.Done():
				return
			case e := <-sub.C:
				req := e.Properties.(permission.Request)
				if !opts.NonInteractive {
					u.mu.Lock()
					kind := u.reply
					u.mu.Unlock()
					_ = svc.Reply(ctx, req.ID, permission.Reply{Kind: kind})
				}
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		sub.Close()
	})
	return u
}

// callWith is newCall with asker in place of the recording one.
func callWith(t *testing.T, id, dir string, input any, asker permission.Asker) *Call {
	t.Helper()
	call, _ := newCall(t, id, dir, input)
	call.Asker = asker
	return call
}
