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

	"github.com/codeloop/codeloop/internal/client"
)

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// runOutput prints a run's events: streamed text and a line per tool call,
// or one JSON object per line. It reads the client's events, so a run in
// this process and one on a server print alike.
type runOutput struct {
	stdout, stderr io.Writer
	json           bool
	color          bool
	sessionID      string
	// since is the id of the session's newest message before the run
	// wrote anything ("" for a new session): parts of it and older
	// messages (a repair of an interrupted earlier run) are not this
	// run's output.
	since string

	kinds   map[string]string // part id → part type
	asked   map[string]client.PermissionRequest
	printed map[string]int         // text part id → bytes printed
	done    map[string]bool        // parts reported as finished
	midLine bool                   // the last text printed did not end a line
	failed  bool                   // an error was reported
	refused int                    // permission requests rejected
	ended   *client.TurnEndedEvent // why the loop ended the turn
	// summaries are the compaction summaries' message ids: their text is
	// not the answer and is not printed as one.
	summaries map[string]bool

	// interactive says asks are answered by the user on the terminal.
	interactive bool
	// held are ended text parts not yet printed as JSON: they wait for
	// their step's end.
	held []client.Part

	// flush, when set, writes out what stdout buffers; it runs before
	// anything goes to stderr, so the two streams keep their order.
	flush func() error
}

func newRunOutput(stdout, stderr io.Writer, asJSON bool, sessionID, since string) *runOutput {
	return &runOutput{
		stdout: stdout, stderr: stderr, json: asJSON, color: isTerminal(stderr), sessionID: sessionID, since: since,
		kinds: map[string]string{}, printed: map[string]int{}, done: map[string]bool{},
		asked: map[string]client.PermissionRequest{},
	}
}

// flushStdout writes out buffered standard output.
func (o *runOutput) flushStdout() {
	if o.flush != nil {
		_ = o.flush()
	}
}

// ours reports whether a message is this run's: newer than since.
func (o *runOutput) ours(messageID string) bool { return messageID > o.since }

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

// note prints a line for the user on standard error, painted.
func (o *runOutput) note(color, msg string) {
	o.endLine()
	o.flushStdout()
	fmt.Fprintln(o.stderr, o.paint(color, msg))
}

// event prints one event of the session (or, for permission events, of a
// sub-agent's session it started).
func (o *runOutput) event(evt client.Event) {
	switch ev := evt.(type) {
	case client.MessageUpdatedEvent:
		o.message(ev.Info)
	case client.PartDeltaEvent:
		if !o.ours(ev.MessageID) || o.summaries[ev.MessageID] {
			return
		}
		if !o.json && o.kinds[ev.PartID] == client.PartText && ev.Field == "text" {
			o.write(ev.Delta)
			o.printed[ev.PartID] += len(ev.Delta)
		}
	case client.PartUpdatedEvent:
		o.part(ev.Part)
	case client.SessionErrorEvent:
		o.error(ev.Error)
	case client.SessionStatusEvent:
		o.status(ev.Status)
	case client.TurnEndedEvent:
		o.ended = &ev
	case client.HookNoticeEvent:
		o.hook(ev)
	case client.PermissionAskedEvent:
		o.asked[ev.ID] = ev.PermissionRequest
	case client.PermissionRepliedEvent:
		req, ok := o.asked[ev.RequestID]
		delete(o.asked, ev.RequestID)
		if ok && ev.Reply == client.ReplyReject {
			o.rejected(req)
		}
	}
}

// rejected reports a refused permission request and how to allow it.
func (o *runOutput) rejected(req client.PermissionRequest) {
	o.refused++
	what := strings.Join(req.Patterns, ", ")
	msg := fmt.Sprintf("permission requested: %s (%s); rejected: run with --auto to allow what no rule denies, "+
		"or allow it in the permission config", req.Permission, what)
	switch {
	case o.interactive:
		msg = fmt.Sprintf("rejected: %s (%s)", req.Permission, what)
	case req.Protected:
		msg = fmt.Sprintf("permission requested: %s (%s); rejected: it needs the user's approval, which neither --auto "+
			"nor the permission config gives: run codeloop interactively to approve it", req.Permission, what)
	}
	o.note("33", msg)
}

// hook prints a hook's notice.
func (o *runOutput) hook(n client.HookNoticeEvent) {
	if o.json {
		o.emit("hook", map[string]any{"event": n.Event, "command": n.Command, "error": n.Error, "text": n.Text})
		return
	}
	color := "2"
	if n.Error {
		color = "33"
	}
	o.note(color, n.String())
}

func (o *runOutput) part(p client.Part) {
	if !o.ours(p.MessageID) || o.summaries[p.MessageID] {
		return
	}
	o.kinds[p.ID] = p.Type
	if p.Type == client.PartText && p.Ignored {
		o.held = slices.DeleteFunc(o.held, func(h client.Part) bool { return h.ID == p.ID })
	}
	if o.done[p.ID] {
		return
	}
	switch p.Type {
	case client.PartText:
		if p.Time == nil || p.Time.End == 0 || p.Synthetic {
			return
		}
		o.done[p.ID] = true
		if p.Ignored {
			// A retried attempt's text: the retry's answer replaces it.
			if !o.json && o.printed[p.ID] > 0 {
				o.note("33", "(the connection dropped: the text above is incomplete, the answer follows)")
			}
			return
		}
		if o.json {
			// Held until the step ends: an attempt that fails and is
			// retried discards its text.
			o.held = append(o.held, p)
			return
		}
		if n := o.printed[p.ID]; n < len(p.Text) {
			o.write(p.Text[n:])
		}
		o.endLine()
	case client.PartTool:
		if p.State == nil || (p.State.Status != client.ToolCompleted && p.State.Status != client.ToolError) {
			return
		}
		o.done[p.ID] = true
		if o.json {
			o.emit("tool_use", map[string]any{"part": p})
			return
		}
		o.endLine()
		if p.State.Status == client.ToolError {
			first, _, _ := strings.Cut(p.State.Error, "\n")
			fmt.Fprintf(o.stdout, "%s %s %s\n", o.paint("31", "✗"), p.Tool, first)
			return
		}
		title := p.State.Title
		if title == "" {
			title = string(p.State.Input)
		}
		fmt.Fprintf(o.stdout, "%s %s %s\n", o.paint("32", "→"), p.Tool, title)
	case client.PartStepStart:
		o.done[p.ID] = true
		if o.json {
			o.emit("step_start", map[string]any{"part": p})
		}
	case client.PartStepFinish:
		o.done[p.ID] = true
		if o.json {
			o.emitHeld()
			o.emit("step_finish", map[string]any{"part": p})
		}
	case client.PartPatch:
		o.done[p.ID] = true
		if o.json {
			o.emit("patch", map[string]any{"part": p})
			return
		}
		for _, sk := range p.Skipped {
			o.note("33", "not kept for revert: "+sk)
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

func (o *runOutput) error(e *client.MessageError) {
	if e == nil {
		return
	}
	o.failed = true
	if o.json {
		o.emitHeld()
		o.emit("error", map[string]any{"error": e})
		return
	}
	o.note("31", "Error: "+e.Error())
}

func (o *runOutput) finish() {
	o.emitHeld()
	o.endLine()
}

// status reports on standard error (or as a status event in JSON) what
// the session waits for: a retry of the model request, or another process
// answering the session.
func (o *runOutput) status(s client.SessionStatus) {
	var msg string
	switch {
	case s.Type == client.StatusRetry:
		wait := time.Until(time.UnixMilli(s.Next)).Round(time.Second)
		msg = fmt.Sprintf("retrying in %s (attempt %d/%d): %s", max(wait, 0), s.Attempt, s.Max, s.Message)
	case s.Type == client.StatusBusy && s.Message != "":
		msg = s.Message
	default:
		return
	}
	if o.json {
		o.emit("status", map[string]any{"status": s, "message": msg})
		return
	}
	o.note("33", msg)
}

// catchUp reports the finished parts of msgs that this run has not seen
// as events: those another process wrote while answering the session, and
// those whose events were dropped.
func (o *runOutput) catchUp(msgs []client.Message) {
	for _, m := range msgs {
		if !o.ours(m.Info.ID) || m.Info.Summary {
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
func (o *runOutput) incomplete() string {
	if o.refused > 0 {
		// Even when the loop went on with the user's reason.
		return "the turn ended after a permission request was rejected"
	}
	if e := o.ended; e != nil {
		switch e.Reason {
		case client.TurnRejected:
			return "the turn ended after a permission request was rejected"
		case client.TurnAttachmentFailed:
			return "a file could not be attached: " + e.Detail
		case client.TurnEmpty:
			return "the model's answer was empty (no text and no tool call)"
		}
	}
	return ""
}

// message notes a compaction summary when one starts: its text is the
// model's notes for itself, so run says on standard error (or as a
// compaction event in JSON) that the conversation is being compacted
// instead of printing them as the answer.
func (o *runOutput) message(info client.MessageInfo) {
	if !info.Summary || !o.ours(info.ID) || o.summaries[info.ID] {
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
	o.note("2", "compacting the conversation to fit the model's context…")
}
