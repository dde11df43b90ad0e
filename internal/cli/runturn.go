package cli

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/codeloop/codeloop/internal/client"
)

// runTurn is one prompt of codeloop run, sent through a client (in this
// process or on a server) and printed as its events arrive.
type runTurn struct {
	c         client.Client
	o         runOptions
	sessionID string
	fresh     bool // the session was made for this run
	asker     *inlineAsker
	compact   bool
	text      string
	files     []client.PartInput
	model     *client.ModelRef

	// parents caches which sessions descend from the run's (sub-agents
	// ask from sessions of their own).
	parents map[string]bool
}

// abortWait bounds how long an interrupted run waits for the loop to say
// it stopped.
const abortWait = 5 * time.Second

// next is one event read from a stream, or the error that ended it.
type next struct {
	evt client.Event
	err error
}

// pump reads a stream into a channel until the stream ends or done is
// closed.
func pump(ctx context.Context, ev client.Events, done <-chan struct{}) <-chan next {
	ch := make(chan next, 256)
	go func() {
		for {
			evt, err := ev.Next(ctx)
			select {
			case ch <- next{evt, err}:
			case <-done:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return ch
}

// drive sends the prompt, prints the turn and returns the run's exit
// status as an error.
func (t *runTurn) drive(ctx context.Context, stdout, stderr io.Writer) error {
	// The events are read with a context that outlives an interrupt, so
	// the end of the aborted turn is still seen.
	ectx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	since, err := t.newest(ectx)
	if err != nil {
		return err
	}
	sub, err := t.c.Subscribe(ectx, client.EventFilter{SessionID: t.sessionID})
	if err != nil {
		return err
	}
	defer sub.Close()
	// Sub-agents ask from sessions of their own.
	asks, err := t.c.Subscribe(ectx, client.EventFilter{Types: []string{client.TypePermissionAsked, client.TypePermissionReplied}})
	if err != nil {
		return err
	}
	defer asks.Close()
	done := make(chan struct{})
	defer close(done)
	evCh, askCh := pump(ectx, sub, done), pump(ectx, asks, done)

	// Standard output is buffered and written out whenever the events
	// waiting are handled: at once when the model is slow, in batches when
	// it streams faster than a write per delta.
	buf := bufio.NewWriterSize(stdout, 64<<10)
	defer buf.Flush()
	out := newRunOutput(buf, stderr, t.o.format == "json", t.sessionID, since)
	out.flush = buf.Flush
	var answers <-chan inlineAnswer
	if t.asker != nil {
		out.interactive = true
		answers = t.asker.answers
	}

	if err := t.send(ectx); err != nil {
		if t.fresh {
			_ = t.c.DeleteSession(ectx, t.sessionID) // nothing was said in it
		}
		return err
	}

	interrupted := false
	stop := ctx.Done()
	var abortTimer <-chan time.Time
	var streamErr error
wait:
	for {
		select {
		case n := <-evCh:
			if n.err != nil {
				streamErr = n.err
				break wait
			}
			switch n.evt.(type) {
			case client.PermissionAskedEvent, client.PermissionRepliedEvent:
				// The session's own asks are handled here, in order
				// with its turn's end; asks reads its sub-agents'.
				t.permission(ectx, out, n.evt)
				continue
			}
			out.event(n.evt)
			if len(evCh) == 0 {
				out.flushStdout()
			}
			if out.ended != nil {
				break wait
			}
		case n := <-askCh:
			if n.err != nil {
				streamErr = n.err
				break wait
			}
			if sessionOf(n.evt) != t.sessionID {
				t.permission(ectx, out, n.evt)
			}
		case ans := <-answers:
			t.asker.answer(ectx, ans)
		case <-stop:
			interrupted, stop = true, nil
			actx, acancel := context.WithTimeout(ectx, abortWait)
			_ = t.c.Abort(actx, t.sessionID)
			acancel()
			abortTimer = time.After(abortWait)
		case <-abortTimer:
			break wait
		}
	}
	if streamErr != nil && !interrupted {
		out.finish()
		out.flushStdout()
		return fmt.Errorf("the event stream ended before the turn did: %w", streamErr)
	}
	if !interrupted {
		// Another process may have answered while this one waited, and
		// events may have been dropped: the stored history says the rest.
		if msgs, err := t.messagesAfter(ectx, since); err == nil {
			out.catchUp(msgs)
		}
	}
	out.finish()
	out.flushStdout()
	var unfinished string
	if e := out.ended; e != nil && !interrupted && e.Reason == client.TurnError && !out.failed {
		out.error(e.Error) // the loop's own error event may have said it already
	}
	if !interrupted {
		unfinished = out.incomplete()
	}
	switch {
	case interrupted:
		if out.json {
			out.emit("cancelled", map[string]any{"signal": signalName(ctx)})
			out.flushStdout()
		}
		return &exitCodeError{code: interruptedCode(ctx)}
	case out.failed:
		return &exitCodeError{code: exitError}
	case unfinished != "":
		if out.json {
			out.emit("incomplete", map[string]any{"reason": unfinished})
			out.flushStdout()
		}
		return &exitCodeError{code: exitError, err: errors.New(unfinished)}
	}
	return nil
}

// send sends the run's message: the command with the message as its
// arguments, or the message with the files.
func (t *runTurn) send(ctx context.Context) error {
	var err error
	switch {
	case t.compact:
		_, err = t.c.Command(ctx, t.sessionID, client.CommandInput{Command: t.o.command, Agent: t.o.agent, Model: t.model})
	case t.o.command != "":
		// The command's allowed tools approve its own turn only: the
		// engine keeps them on its message, not on the session.
		_, err = t.c.Command(ctx, t.sessionID, client.CommandInput{Command: t.o.command, Arguments: t.text,
			Agent: t.o.agent, Model: t.model, Parts: t.files})
	default:
		in := client.PromptInput{Agent: t.o.agent, Model: t.model}
		if strings.TrimSpace(t.text) != "" {
			in.Parts = append(in.Parts, client.TextInput(t.text))
		}
		in.Parts = append(in.Parts, t.files...)
		_, err = t.c.Prompt(ctx, t.sessionID, in)
	}
	return err
}

// permission handles a permission event of the run's session or of a
// sub-agent's: the user answers on the terminal, or the output reports a
// rejection.
func (t *runTurn) permission(ctx context.Context, out *runOutput, evt client.Event) {
	switch ev := evt.(type) {
	case client.PermissionAskedEvent:
		if !t.descends(ctx, ev.SessionID) {
			return
		}
		out.event(ev)
		if t.asker != nil {
			out.flushStdout()
			t.asker.asked(ev.PermissionRequest, t.c.ReplyPermission)
			return
		}
		// No one to ask (a server's engine asks its clients): --auto
		// approves what the rules left to the user, except what only
		// the user may approve; anything else is rejected.
		reply := client.PermissionReply{Reply: client.ReplyReject}
		if t.o.auto && !ev.Protected {
			reply.Reply = client.ReplyOnce
		}
		if err := t.c.ReplyPermission(ctx, ev.ID, reply); err != nil && !errors.Is(err, client.ErrNotFound) {
			out.note("33", "answering a permission request: "+err.Error())
		}
	case client.PermissionRepliedEvent:
		if !t.descends(ctx, ev.SessionID) {
			return
		}
		if t.asker != nil {
			t.asker.replied(ev.RequestID)
		}
		out.event(ev) // only requests seen asked are reported
	}
}

// sessionOf is the session a permission event is about.
func sessionOf(evt client.Event) string {
	switch ev := evt.(type) {
	case client.PermissionAskedEvent:
		return ev.SessionID
	case client.PermissionRepliedEvent:
		return ev.SessionID
	}
	return ""
}

// descends reports whether session id is the run's or was started,
// directly or not, from it.
func (t *runTurn) descends(ctx context.Context, id string) bool {
	if id == t.sessionID {
		return true
	}
	if t.parents == nil {
		t.parents = map[string]bool{}
	}
	if v, ok := t.parents[id]; ok {
		return v
	}
	ok, cur := false, id
	for range 16 {
		s, err := t.c.GetSession(ctx, cur)
		if err != nil || s.ParentID == "" {
			break
		}
		if s.ParentID == t.sessionID {
			ok = true
			break
		}
		cur = s.ParentID
	}
	t.parents[id] = ok
	return ok
}

// newest is the id of the session's newest message, "" when it has none.
func (t *runTurn) newest(ctx context.Context) (string, error) {
	if t.fresh {
		return "", nil
	}
	msgs, err := t.c.Messages(ctx, t.sessionID, client.MessagesOptions{Limit: 1})
	if err != nil || len(msgs) == 0 {
		return "", err
	}
	return msgs[len(msgs)-1].Info.ID, nil
}

// messagesAfter returns the session's messages newer than since, reading
// pages from the newest back.
func (t *runTurn) messagesAfter(ctx context.Context, since string) ([]client.Message, error) {
	const page = 64
	var out []client.Message
	before := ""
	for {
		msgs, err := t.c.Messages(ctx, t.sessionID, client.MessagesOptions{Limit: page, Before: before})
		if err != nil {
			return nil, err
		}
		i := len(msgs)
		for i > 0 && msgs[i-1].Info.ID > since {
			i--
		}
		out = append(msgs[i:len(msgs):len(msgs)], out...)
		if i > 0 || len(msgs) < page {
			return out, nil
		}
		before = msgs[0].Info.ID
	}
}

// attachFiles turns the --file arguments into file parts. In this process
// they are file: URLs the engine reads (directories are listed, images
// and PDFs sent as data, other files read as text); for a server, which
// may not see this machine's files, their content is sent as data: URLs.
func attachFiles(names []string, cwd string, inline bool) ([]client.PartInput, error) {
	var parts []client.PartInput
	for _, n := range names {
		p := n
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("--file %s: %w", n, err)
		}
		mt := "text/plain"
		if st.IsDir() {
			mt = mimeDirectory
		} else if m, _, _ := strings.Cut(mime.TypeByExtension(filepath.Ext(p)), ";"); strings.HasPrefix(m, "image/") || m == "application/pdf" {
			mt = m
		}
		part := client.PartInput{Type: client.PartFile, Mime: mt, Filename: filepath.Base(p)}
		if !inline {
			part.URL = (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String()
			parts = append(parts, part)
			continue
		}
		var data []byte
		if st.IsDir() {
			data, err = listDir(p)
			part.Mime = "text/plain"
		} else {
			data, err = os.ReadFile(p)
		}
		if err != nil {
			return nil, fmt.Errorf("--file %s: %w", n, err)
		}
		part.URL = "data:" + part.Mime + ";base64," + base64.StdEncoding.EncodeToString(data)
		parts = append(parts, part)
	}
	return parts, nil
}

// mimeDirectory is the media type of a directory reference.
const mimeDirectory = "application/x-directory"

// listDir lists a directory's entries, one per line, directories with a
// trailing slash, for a server that cannot list it itself.
func listDir(dir string) ([]byte, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() {
			n += "/"
		}
		names = append(names, n)
	}
	sort.Strings(names)
	return []byte(dir + "/\n" + strings.Join(names, "\n") + "\n"), nil
}
