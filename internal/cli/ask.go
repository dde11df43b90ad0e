package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/codeloop/codeloop/internal/client"
)

// inlineAsker asks `run`'s permission requests on the terminal, one at a
// time: once, always or reject (with an optional reason for the model).
// It reads the terminal in a goroutine per question, which a read
// deadline ends when the run stops first.
type inlineAsker struct {
	tty     *os.File
	out     io.Writer // the terminal's standard error
	answers chan inlineAnswer

	queue   []pendingAsk
	current *pendingAsk
	wg      sync.WaitGroup
}

// replyFunc answers a permission request (client.Client.ReplyPermission).
type replyFunc func(ctx context.Context, requestID string, r client.PermissionReply) error

// pendingAsk is a request waiting for the user, with where to answer it.
type pendingAsk struct {
	client.PermissionRequest
	reply replyFunc
}

type inlineAnswer struct {
	line string
	err  error
}

// newInlineAsker opens the controlling terminal; nil when there is none.
func newInlineAsker(out io.Writer) *inlineAsker {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil
	}
	return &inlineAsker{tty: tty, out: out, answers: make(chan inlineAnswer, 1)}
}

// asked queues a request and asks it when no other question is open.
func (a *inlineAsker) asked(req client.PermissionRequest, reply replyFunc) {
	a.queue = append(a.queue, pendingAsk{req, reply})
	a.next()
}

// replied drops a request answered elsewhere (a rule, another front end).
func (a *inlineAsker) replied(id string) {
	for i, r := range a.queue {
		if r.ID == id {
			a.queue = append(a.queue[:i], a.queue[i+1:]...)
			return
		}
	}
}

// next asks the first queued request.
func (a *inlineAsker) next() {
	if a.current != nil || len(a.queue) == 0 {
		return
	}
	req := a.queue[0]
	a.queue = a.queue[1:]
	a.current = &req
	what := strings.Join(req.Patterns, ", ")
	if d, ok := req.Metadata["diff"].(string); ok && d != "" && len(d) < 4000 {
		fmt.Fprintln(a.out, strings.TrimRight(d, "\n"))
	}
	fmt.Fprintf(a.out, "codeloop asks to %s: %s\n  allow [o]nce, [a]lways this session, or [r]eject (type a reason to reject with it)? ", req.Permission, what)
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		line, err := bufio.NewReader(a.tty).ReadString('\n')
		a.answers <- inlineAnswer{line, err}
	}()
}

// answer replies to the open question with what the user typed, and asks
// the next one.
func (a *inlineAsker) answer(ctx context.Context, ans inlineAnswer) {
	req := a.current
	a.current = nil
	if req == nil {
		return
	}
	r := parseInlineReply(ans.line)
	if ans.err != nil && !errors.Is(ans.err, io.EOF) {
		r = client.PermissionReply{Reply: client.ReplyReject}
	}
	if err := req.reply(ctx, req.ID, r); err != nil {
		fmt.Fprintf(a.out, "the request is no longer waiting: %v\n", err)
	}
	a.next()
}

// parseInlineReply reads an answer: o/once/y/yes, a/always, r/reject/n/no
// or empty (reject), or any other text (a reject with it as the reason).
func parseInlineReply(line string) client.PermissionReply {
	s := strings.TrimSpace(line)
	switch strings.ToLower(s) {
	case "o", "once", "y", "yes":
		return client.PermissionReply{Reply: client.ReplyOnce}
	case "a", "always":
		return client.PermissionReply{Reply: client.ReplyAlways}
	case "", "r", "reject", "n", "no":
		return client.PermissionReply{Reply: client.ReplyReject}
	}
	return client.PermissionReply{Reply: client.ReplyReject, Message: s}
}

// close ends a pending read and closes the terminal.
func (a *inlineAsker) close() {
	_ = a.tty.SetReadDeadline(time.Now())
	a.wg.Wait()
	a.tty.Close()
}
