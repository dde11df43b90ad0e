package github

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/codeloop/codeloop/internal/client"
)

// agentRun is the outcome of one prompt.
type agentRun struct {
	SessionID string
	Answer    string  // the last answer's text
	Cost      float64 // US dollars
	Steps     int
	Denied    []string // what the model asked for and was refused
	Stopped   string   // why the run was stopped early, if it was
}

// agentOptions bound a prompt.
type agentOptions struct {
	Agent    string
	Model    *client.ModelRef
	Timeout  time.Duration
	MaxSteps int
	// Progress is called when something worth showing happens.
	Progress func(line string)
}

// networkRules deny the tools that reach the network from codeloop itself,
// outside the sandbox: the task's text is anyone's, and a fetch could
// carry what the model read to any address. Session rules only tighten,
// so no config loosens them, and a sub-agent inherits their denials.
func networkRules() []client.PermissionRule {
	var out []client.PermissionRule
	for _, p := range []string{"webfetch", "websearch", "codesearch"} {
		out = append(out, client.PermissionRule{Permission: p, Pattern: "*", Action: "deny"})
	}
	return out
}

// errStopped says the run was cut short by the time or step limit.
var errStopped = errors.New("the run was stopped")

// prompt sends text to a new session and waits until the session is idle,
// refusing every permission and question, and stopping the session when
// the time or the step limit is reached.
func prompt(ctx context.Context, c client.Client, text string, o agentOptions) (agentRun, error) {
	var out agentRun
	sess, err := c.CreateSession(ctx, client.CreateSessionInput{Permission: networkRules()})
	if err != nil {
		return out, fmt.Errorf("creating a session: %w", err)
	}
	out.SessionID = sess.ID
	ev, err := c.Subscribe(ctx, client.EventFilter{Types: []string{
		client.TypeSessionStatus, client.TypeSessionError, client.TypePartUpdated,
		client.TypePermissionAsked, client.TypeQuestionAsked,
	}})
	if err != nil {
		return out, err
	}
	defer ev.Close()
	if _, err := c.Prompt(ctx, sess.ID, client.PromptInput{Agent: o.Agent, Model: o.Model, Parts: []client.PartInput{client.TextInput(text)}}); err != nil {
		return out, fmt.Errorf("sending the task: %w", err)
	}
	wctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	steps := map[string]bool{}
	busy := false
	var loopErr *client.MessageError
	stop := func(why string) {
		if out.Stopped != "" {
			return
		}
		out.Stopped = why
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		_ = c.Abort(actx, sess.ID)
		cancel()
	}
	// Once stopped, the session gets a short while to settle.
	settle, cancelSettle := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelSettle()
	settleStarted := false
	for {
		evCtx := wctx
		if out.Stopped != "" {
			if !settleStarted {
				settleStarted = true
				var c2 context.CancelFunc
				settle, c2 = context.WithTimeout(settle, 30*time.Second)
				defer c2()
			}
			evCtx = settle
		}
		e, err := ev.Next(evCtx)
		if err != nil {
			if ctx.Err() != nil {
				stop("interrupted")
				return out, ctx.Err()
			}
			if wctx.Err() != nil && out.Stopped == "" {
				stop(fmt.Sprintf("the time limit (%s) was reached", o.Timeout))
				continue
			}
			break
		}
		switch e := e.(type) {
		case client.PermissionAskedEvent:
			note := e.Permission
			if len(e.Patterns) > 0 {
				note += " " + strings.Join(e.Patterns, ", ")
			}
			out.Denied = append(out.Denied, note)
			o.Progress("denied: " + note)
		case client.QuestionAskedEvent:
			out.Denied = append(out.Denied, "a question to the user")
			o.Progress("refused a question to the user")
			_ = c.RejectQuestion(ctx, e.ID)
		case client.PartUpdatedEvent:
			if e.Part.Type == client.PartStepFinish && !steps[e.Part.ID] {
				steps[e.Part.ID] = true
				out.Steps++
				// A step that ends the turn is never cut short.
				if o.MaxSteps > 0 && out.Steps >= o.MaxSteps && e.Part.Reason != "stop" {
					stop(fmt.Sprintf("the step limit (%d) was reached", o.MaxSteps))
				}
			}
			if e.Part.Type == client.PartTool && e.Part.State != nil && e.Part.State.Status == client.ToolCompleted && e.Part.SessionID == sess.ID {
				title := e.Part.State.Title
				if title == "" {
					title = e.Part.Tool
				}
				o.Progress(e.Part.Tool + ": " + firstLine(title))
			}
		case client.SessionErrorEvent:
			if e.SessionID == sess.ID && e.Error != nil && e.Error.Name != "MessageAbortedError" {
				loopErr = e.Error
			}
		case client.SessionStatusEvent:
			if e.SessionID != sess.ID {
				continue
			}
			if e.Status.Type == client.StatusBusy {
				busy = true
			}
			if e.Status.Type == client.StatusIdle && busy {
				return finish(ctx, c, out, loopErr)
			}
		case client.EventsDroppedEvent:
			st, err := c.Status(ctx)
			if err == nil && st[sess.ID].Type == "" && busy {
				return finish(ctx, c, out, loopErr)
			}
		}
	}
	return finish(ctx, c, out, loopErr)
}

// finish reads the session's cost and last answer.
func finish(ctx context.Context, c client.Client, out agentRun, loopErr *client.MessageError) (agentRun, error) {
	rctx := context.WithoutCancel(ctx)
	if s, err := c.GetSession(rctx, out.SessionID); err == nil {
		out.Cost = s.Cost
	}
	msgs, err := c.Messages(rctx, out.SessionID, client.MessagesOptions{})
	if err != nil {
		return out, fmt.Errorf("reading the session: %w", err)
	}
	var cost float64
	for _, m := range msgs {
		cost += m.Info.Cost
	}
	if out.Cost == 0 {
		out.Cost = cost
	}
	for i := len(msgs) - 1; i >= 0 && out.Answer == ""; i-- {
		if msgs[i].Info.Role != client.RoleAssistant {
			continue
		}
		var b strings.Builder
		for _, p := range msgs[i].Parts {
			if p.Type == client.PartText && !p.Synthetic && !p.Ignored {
				b.WriteString(p.Text)
			}
		}
		out.Answer = strings.TrimSpace(b.String())
	}
	switch {
	case out.Stopped != "":
		return out, fmt.Errorf("%w: %s", errStopped, out.Stopped)
	case loopErr != nil:
		return out, fmt.Errorf("the model's run failed: %s", firstLine(loopErr.Error()))
	}
	return out, nil
}
