package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/codeloop/codeloop/internal/app"
	"github.com/codeloop/codeloop/internal/client"
)

// runAttached runs one prompt on a codeloop server (run --attach): the
// session and the loop live in the server; this process sends the message,
// prints the answer as its events arrive and exits like run does.
func (e *env) runAttached(ctx context.Context, o runOptions, text string) error {
	switch {
	case len(o.files) > 0, o.command != "", o.fork, o.sandbox != "", o.title != "":
		return &exitCodeError{code: exitUsage, err: errors.New("--attach takes a message with --continue, --session, --model, --agent, --auto and --format; " +
			"--file, --command, --fork, --title and --sandbox are for a run in this process")}
	}
	c, err := e.openRemote(ctx, o.attach, o.token)
	if err != nil {
		return err
	}
	defer c.Close()
	in := client.PromptInput{Agent: o.agent, Parts: []client.PartInput{client.TextInput(text)}}
	if o.model != "" {
		ref, ok := app.ParseModel(o.model)
		if !ok {
			return &exitCodeError{code: exitUsage, err: fmt.Errorf("--model %q: want provider/model", o.model)}
		}
		in.Model = &client.ModelRef{ProviderID: ref.ProviderID, ModelID: ref.ModelID, Variant: ref.Variant}
	}
	sid, err := attachedSession(ctx, c, o)
	if err != nil {
		return err
	}
	ev, err := c.Subscribe(ctx, client.EventFilter{SessionID: sid})
	if err != nil {
		return err
	}
	defer ev.Close()
	// Sub-agents ask from sessions of their own.
	asks, err := c.Subscribe(ctx, client.EventFilter{Types: []string{client.TypePermissionAsked}})
	if err != nil {
		return err
	}
	defer asks.Close()
	// Two readers feed the loop below; they end when done is closed and
	// their streams with it (on return).
	done := make(chan struct{})
	defer close(done)
	askCh := make(chan client.PermissionRequest)
	go func() {
		for {
			evt, err := asks.Next(ctx)
			if err != nil {
				return
			}
			if p, ok := evt.(client.PermissionAskedEvent); ok && p.SessionID != sid && descendsFrom(ctx, c, p.SessionID, sid) {
				select {
				case askCh <- p.PermissionRequest:
				case <-done:
					return
				}
			}
		}
	}()
	type next struct {
		evt client.Event
		err error
	}
	evCh := make(chan next)
	go func() {
		for {
			evt, err := ev.Next(ctx)
			select {
			case evCh <- next{evt, err}:
			case <-done:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	if _, err := c.Prompt(ctx, sid, in); err != nil {
		return err
	}
	out := &remoteOutput{stdout: e.stdout, stderr: e.stderr, json: o.format == "json", sessionID: sid,
		printed: map[string]int{}, done: map[string]bool{}}
	answer := func(p client.PermissionRequest) error {
		reply := client.PermissionReply{Reply: client.ReplyReject}
		if o.auto {
			reply.Reply = client.ReplyOnce
		} else {
			out.refused(p)
		}
		if err := c.ReplyPermission(ctx, p.ID, reply); err != nil && !errors.Is(err, client.ErrNotFound) {
			return err
		}
		return nil
	}
	for {
		var evt client.Event
		var err error
		select {
		case p := <-askCh:
			if err := answer(p); err != nil {
				return err
			}
			continue
		case n := <-evCh:
			evt, err = n.evt, n.err
		}
		if err != nil {
			if ctx.Err() != nil {
				// Interrupted: stop the server's loop for this session too.
				actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
				_ = c.Abort(actx, sid)
				cancel()
				out.endLine()
				return &exitCodeError{code: interruptedCode(ctx)}
			}
			return fmt.Errorf("the event stream from the server ended: %w", err)
		}
		if p, ok := evt.(client.PermissionAskedEvent); ok {
			if err := answer(p.PermissionRequest); err != nil {
				return err
			}
			continue
		}
		if out.event(evt) {
			break
		}
	}
	out.endLine()
	if out.failed {
		return &exitCodeError{code: exitError}
	}
	return nil
}

// attachedSession is the session run --attach prompts: --session, the
// newest (--continue), or a new one.
func attachedSession(ctx context.Context, c client.Client, o runOptions) (string, error) {
	switch {
	case o.session != "":
		if _, err := c.GetSession(ctx, o.session); err != nil {
			return "", fmt.Errorf("session %s: %w", o.session, err)
		}
		return o.session, nil
	case o.cont:
		list, err := c.ListSessions(ctx, client.ListSessionsOptions{})
		if err != nil {
			return "", err
		}
		for _, s := range list {
			if s.ParentID == "" {
				return s.ID, nil
			}
		}
		return "", errors.New("the server's project has no session to continue")
	}
	s, err := c.CreateSession(ctx, client.CreateSessionInput{})
	return s.ID, err
}

// remoteOutput prints a session's events as run does: streamed text and a
// line per tool call, or one JSON object per line.
type remoteOutput struct {
	stdout, stderr io.Writer
	json           bool
	sessionID      string
	printed        map[string]int  // text part id → bytes printed
	done           map[string]bool // parts reported as finished
	midLine        bool
	busy           bool // the loop was seen running
	failed         bool
}

func (o *remoteOutput) emit(typ string, fields map[string]any) {
	fields["type"] = typ
	fields["timestamp"] = time.Now().UnixMilli()
	fields["sessionID"] = o.sessionID
	if b, err := json.Marshal(fields); err == nil {
		fmt.Fprintf(o.stdout, "%s\n", b)
	}
}

func (o *remoteOutput) endLine() {
	if o.midLine {
		fmt.Fprintln(o.stdout)
		o.midLine = false
	}
}

func (o *remoteOutput) write(s string) {
	if s != "" {
		fmt.Fprint(o.stdout, s)
		o.midLine = !strings.HasSuffix(s, "\n")
	}
}

func (o *remoteOutput) refused(req client.PermissionRequest) {
	o.failed = true
	msg := fmt.Sprintf("permission requested: %s (%s); rejected: run with --auto to allow what no rule denies, "+
		"or allow it in the server's permission config", req.Permission, strings.Join(req.Patterns, ", "))
	if o.json {
		o.emit("error", map[string]any{"error": map[string]any{"name": "PermissionRejected", "data": map[string]string{"message": msg}}})
		return
	}
	o.endLine()
	fmt.Fprintln(o.stderr, msg)
}

// event prints one event and reports whether the turn is over.
func (o *remoteOutput) event(evt client.Event) bool {
	switch ev := evt.(type) {
	case client.PartDeltaEvent:
		if !o.json && ev.Field == "text" {
			o.write(ev.Delta)
			o.printed[ev.PartID] += len(ev.Delta)
		}
	case client.PartUpdatedEvent:
		o.part(ev.Part)
	case client.SessionErrorEvent:
		if ev.Error == nil {
			return false
		}
		o.failed = true
		if o.json {
			o.emit("error", map[string]any{"error": ev.Error})
		} else {
			o.endLine()
			fmt.Fprintln(o.stderr, "Error: "+ev.Error.Data.Message)
		}
	case client.SessionStatusEvent:
		switch ev.Status.Type {
		case client.StatusBusy:
			o.busy = true
		case client.StatusIdle:
			return o.busy
		}
	}
	return false
}

func (o *remoteOutput) part(p client.Part) {
	if o.done[p.ID] {
		return
	}
	switch p.Type {
	case "text":
		if p.Time == nil || p.Time.End == 0 || p.Synthetic {
			return
		}
		o.done[p.ID] = true
		if p.Ignored {
			if !o.json && o.printed[p.ID] > 0 {
				o.endLine()
				fmt.Fprintln(o.stderr, "(the connection dropped: the text above is incomplete, the answer follows)")
			}
			return
		}
		if o.json {
			o.emit("text", map[string]any{"part": p})
			return
		}
		if n := o.printed[p.ID]; n < len(p.Text) {
			o.write(p.Text[n:])
		}
		o.endLine()
	case "tool":
		if p.State == nil || (p.State.Status != "completed" && p.State.Status != "error") {
			return
		}
		o.done[p.ID] = true
		if o.json {
			o.emit("tool_use", map[string]any{"part": p})
			return
		}
		o.endLine()
		if p.State.Status == "error" {
			first, _, _ := strings.Cut(p.State.Error, "\n")
			fmt.Fprintf(o.stdout, "✗ %s %s\n", p.Tool, first)
			return
		}
		title := p.State.Title
		if title == "" {
			title = string(p.State.Input)
		}
		fmt.Fprintf(o.stdout, "→ %s %s\n", p.Tool, title)
	}
}

// descendsFrom reports whether session id was started, directly or not, by
// session root.
func descendsFrom(ctx context.Context, c client.Client, id, root string) bool {
	for range 16 {
		s, err := c.GetSession(ctx, id)
		if err != nil || s.ParentID == "" {
			return false
		}
		if s.ParentID == root {
			return true
		}
		id = s.ParentID
	}
	return false
}
