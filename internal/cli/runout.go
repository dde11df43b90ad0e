package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/session"
)

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// runOutput prints a run's events: streamed text and a line per tool call,
// or one JSON object per line.
type runOutput struct {
	stdout, stderr io.Writer
	json           bool
	color          bool
	sessionID      string
	// since is a message id minted before the run wrote anything: parts of
	// older messages (a repair of an interrupted earlier run) are not this
	// run's output.
	since string

	kinds   map[string]string // part id → part type
	asked   map[string]permission.Request
	printed map[string]int          // text part id → bytes printed
	done    map[string]bool         // parts reported as finished
	midLine bool                    // the last text printed did not end a line
	failed  bool                    // an error was reported
	refused int                     // permission requests rejected
	ended   *session.TurnEndedEvent // why this process's loop ended the turn
	// summaries are the compaction summaries' message ids: their text is
	// not the answer and is not printed as one.
	summaries map[string]bool

	// interactive says asks are answered by the user on the terminal.
	interactive bool
	// held are ended text parts not yet printed as JSON: they wait for
	// their step's end.
	held []*message.TextPart

	// flush, when set, writes out what stdout buffers; it runs before
	// anything goes to stderr, so the two streams keep their order.
	flush func() error
}

// flushStdout writes out buffered standard output.
func (o *runOutput) flushStdout() {
	if o.flush != nil {
		_ = o.flush()
	}
}

func newRunOutput(stdout, stderr io.Writer, asJSON bool, sessionID, since string) *runOutput {
	return &runOutput{
		stdout: stdout, stderr: stderr, json: asJSON, color: isTerminal(stderr), sessionID: sessionID, since: since,
		kinds: map[string]string{}, printed: map[string]int{}, done: map[string]bool{},
		asked: map[string]permission.Request{},
	}
}

func (o *runOutput) emit(typ string, fields map[string]any) {
	fields["type"] = typ
	fields["timestamp"] = time.Now().UnixMilli()
	fields["sessionID"] = o.sessionID
	b, err := json.Marshal(fields)
	if err != nil {
		return
	}
	fmt.Fprintf(o.stdout, "%s\n", b)
}

// emitHeld prints the held text parts.
func (o *runOutput) emitHeld() {
	for _, p := range o.held {
		o.emit("text", map[string]any{"part": p})
	}
	o.held = nil
}

// endLine ends a line of streamed text before other output.
func (o *runOutput) endLine() {
	if o.midLine {
		fmt.Fprintln(o.stdout)
		o.midLine = false
	}
}

func (o *runOutput) write(s string) {
	if s == "" {
		return
	}
	fmt.Fprint(o.stdout, s)
	o.midLine = !strings.HasSuffix(s, "\n")
}

func (o *runOutput) event(ev bus.Event) {
	switch p := ev.Properties.(type) {
	case session.MessageEvent:
		o.message(p.Info)
	case session.DeltaEvent:
		if p.MessageID < o.since || o.summaries[p.MessageID] {
			return
		}
		if !o.json && o.kinds[p.PartID] == message.TypeText && p.Field == "text" {
			o.write(p.Delta)
			o.printed[p.PartID] += len(p.Delta)
		}
	case session.PartEvent:
		o.part(p.Part)
	case session.ErrorEvent:
		o.error(p.Error)
	case session.StatusEvent:
		o.status(p.Status)
	case session.TurnEndedEvent:
		o.ended = &p
	case permission.Request:
		o.asked[p.ID] = p
	case permission.Replied:
		req, ok := o.asked[p.RequestID]
		delete(o.asked, p.RequestID)
		if !ok || p.Reply != permission.ReplyReject {
			return
		}
		o.endLine()
		o.refused++
		msg := fmt.Sprintf("permission requested: %s (%s); rejected: run with --auto to allow what no rule denies, "+
			"or allow it in the permission config", req.Permission, strings.Join(req.Patterns, ", "))
		switch {
		case o.interactive:
			msg = fmt.Sprintf("rejected: %s (%s)", req.Permission, strings.Join(req.Patterns, ", "))
		case req.Protected:
			msg = fmt.Sprintf("permission requested: %s (%s); rejected: it needs the user's approval, which neither --auto "+
				"nor the permission config gives: run codeloop interactively to approve it", req.Permission, strings.Join(req.Patterns, ", "))
		}
		o.flushStdout()
		fmt.Fprintln(o.stderr, o.paint("33", msg))
	}
}

func (o *runOutput) part(p message.Part) {
	if p.Base().MessageID < o.since || o.summaries[p.Base().MessageID] {
		return
	}
	id := p.Base().ID
	o.kinds[id] = p.Type()
	if t, ok := p.(*message.TextPart); ok && t.Ignored {
		o.held = slices.DeleteFunc(o.held, func(h *message.TextPart) bool { return h.ID == id })
	}
	if o.done[id] {
		return
	}
	switch p := p.(type) {
	case *message.TextPart:
		if p.Time == nil || p.Time.End == 0 || p.Synthetic {
			return
		}
		o.done[id] = true
		if p.Ignored {
			// A retried attempt's text: the retry's answer replaces it.
			if !o.json && o.printed[id] > 0 {
				o.endLine()
				o.flushStdout()
				fmt.Fprintln(o.stderr, o.paint("33", "(the connection dropped: the text above is incomplete, the answer follows)"))
			}
			return
		}
		if o.json {
			// Held until the step ends: an attempt that fails and is
			// retried discards its text.
			o.held = append(o.held, p)
			return
		}
		if n := o.printed[id]; n < len(p.Text) {
			o.write(p.Text[n:])
		}
		o.endLine()
	case *message.ToolPart:
		if p.State.Status != message.ToolCompleted && p.State.Status != message.ToolError {
			return
		}
		o.done[id] = true
		if o.json {
			o.emit("tool_use", map[string]any{"part": p})
			return
		}
		o.endLine()
		if p.State.Status == message.ToolError {
			first, _, _ := strings.Cut(p.State.Error, "\n")
			fmt.Fprintf(o.stdout, "%s %s %s\n", o.paint("31", "✗"), p.Tool, first)
			return
		}
		title := p.State.Title
		if title == "" {
			title = string(p.State.Input)
		}
		fmt.Fprintf(o.stdout, "%s %s %s\n", o.paint("32", "→"), p.Tool, title)
	case *message.StepStartPart:
		o.done[id] = true
		if o.json {
			o.emit("step_start", map[string]any{"part": p})
		}
	case *message.StepFinishPart:
		o.done[id] = true
		if o.json {
			o.emitHeld()
			o.emit("step_finish", map[string]any{"part": p})
		}
	case *message.PatchPart:
		o.done[id] = true
		if o.json {
			o.emit("patch", map[string]any{"part": p})
			return
		}
		for _, sk := range p.Skipped {
			o.flushStdout()
			fmt.Fprintln(o.stderr, o.paint("33", "not kept for revert: "+sk))
		}
	}
}

// paint colours s when standard error is a terminal.
func (o *runOutput) paint(code, s string) string {
	if !o.color {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (o *runOutput) error(e *message.Error) {
	if e == nil {
		return
	}
	o.failed = true
	if o.json {
		o.emitHeld()
		o.emit("error", map[string]any{"error": e})
		return
	}
	o.endLine()
	o.flushStdout()
	fmt.Fprintln(o.stderr, o.paint("31", "Error: "+e.Error()))
}

func (o *runOutput) finish() {
	o.emitHeld()
	o.endLine()
}

// status reports on standard error (or as a status event in JSON) what
// the session waits for: a retry of the model request, or another process
// answering the session.
func (o *runOutput) status(s session.Status) {
	var msg string
	switch {
	case s.Type == session.StatusRetry:
		wait := time.Until(time.UnixMilli(s.Next)).Round(time.Second)
		msg = fmt.Sprintf("retrying in %s (attempt %d/%d): %s", max(wait, 0), s.Attempt, s.Max, s.Message)
	case s.Type == session.StatusBusy && s.Message != "":
		msg = s.Message
	default:
		return
	}
	if o.json {
		o.emit("status", map[string]any{"status": s, "message": msg})
		return
	}
	o.endLine()
	o.flushStdout()
	fmt.Fprintln(o.stderr, o.paint("33", msg))
}

// catchUp reports the finished parts of msgs that this run has not seen
// as events: those another process wrote while answering the session.
func (o *runOutput) catchUp(msgs []message.Message) {
	for _, m := range msgs {
		if m.Info.ID < o.since || m.Info.Summary {
			continue
		}
		for _, p := range m.Parts {
			o.part(p)
		}
	}
}

// incomplete says why the turn that ended without an error still did not
// do what was asked: a permission was refused, a file could not be
// attached, or the model answered nothing. It returns "" when the turn is
// complete.
func (o *runOutput) incomplete(msgs []message.Message) string {
	if o.refused > 0 {
		// Even when the loop went on with the user's reason.
		return "the turn ended after a permission request was rejected"
	}
	if e := o.ended; e != nil {
		switch e.Reason {
		case session.TurnRejected:
			return "the turn ended after a permission request was rejected"
		case session.TurnAttachmentFailed:
			return "a file could not be attached: " + e.Detail
		case session.TurnEmpty:
			return "the model's answer was empty (no text and no tool call)"
		}
		return ""
	}
	// Another process answered the session: its history says how.
	var last *message.Message
	for i := range msgs {
		m := &msgs[i]
		if m.Info.ID < o.since {
			continue
		}
		if m.Info.Role == message.RoleUser {
			for _, p := range m.Parts {
				if t, ok := p.(*message.TextPart); ok && t.Synthetic {
					if why, ok := t.Metadata[session.AttachErrorKey].(string); ok {
						return "a file could not be attached: " + why
					}
				}
			}
		}
		if m.Info.Role == message.RoleAssistant && !m.Info.Summary {
			last = m
		}
	}
	if last == nil || last.Info.Error != nil {
		return ""
	}
	for _, p := range last.Parts {
		switch p := p.(type) {
		case *message.TextPart:
			if strings.TrimSpace(p.Text) != "" {
				return ""
			}
		case *message.ToolPart:
			return ""
		}
	}
	return "the model's answer was empty (no text and no tool call)"
}

// message notes a compaction summary when one starts: its text is the
// model's notes for itself, so run says on standard error (or as a
// compaction event in JSON) that the conversation is being compacted
// instead of printing them as the answer.
func (o *runOutput) message(info message.Info) {
	if !info.Summary || info.ID < o.since || o.summaries[info.ID] {
		return
	}
	if o.summaries == nil {
		o.summaries = map[string]bool{}
	}
	o.summaries[info.ID] = true
	if o.json {
		o.emit("compaction", map[string]any{"messageID": info.ID})
		return
	}
	o.endLine()
	o.flushStdout()
	fmt.Fprintln(o.stderr, o.paint("2", "compacting the conversation to fit the model's context…"))
}
