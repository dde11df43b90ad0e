package session

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/message"
)

// writer keeps the parts and the info of the assistant message being
// streamed and saves them: text deltas at most every interval, everything
// else at once. The stream, the tool goroutines and the flush timer all go
// through it.
//
// mu guards the message, its parts and the dirty set; writeMu orders whole
// flushes (encode under mu, then store), so that an older copy of a part is
// never stored after a newer one. writeMu is always taken before mu.
type writer struct {
	ctx      context.Context // never cancelled: writes must land even after an abort
	sessions *Sessions
	bus      *bus.Bus
	interval time.Duration
	log      func(msg string, args ...any)

	writeMu sync.Mutex
	mu      sync.Mutex
	info    *message.Info
	parts   []message.Part
	texts   map[message.Part]*strings.Builder // text of open text and reasoning parts
	dirty   map[message.Part]bool
	infoDue bool
	timer   *time.Timer
	timerWG sync.WaitGroup
	closed  bool

	infoStored bool  // the message row exists; guarded by writeMu
	failed     error // the first write that failed; guarded by writeMu
}

func newWriter(ctx context.Context, s *Sessions, b *bus.Bus, interval time.Duration, info *message.Info, log func(string, ...any)) *writer {
	return &writer{
		ctx: context.WithoutCancel(ctx), sessions: s, bus: b, interval: interval, log: log,
		info: info, texts: map[message.Part]*strings.Builder{}, dirty: map[message.Part]bool{},
	}
}

// add appends a new part; the caller holds mu.
func (w *writer) add(p message.Part) {
	b := p.Base()
	b.SessionID = w.info.SessionID
	b.MessageID = w.info.ID
	w.parts = append(w.parts, p)
	w.dirty[p] = true
}

// touch marks p for the next flush; the caller holds mu.
func (w *writer) touch(p message.Part) { w.dirty[p] = true }

// touchInfo marks the message info for the next flush; the caller holds mu.
func (w *writer) touchInfo() { w.infoDue = true }

// appendText adds delta to an open text or reasoning part and schedules a
// flush; the caller holds mu.
func (w *writer) appendText(p message.Part, delta string) {
	sb := w.texts[p]
	if sb == nil {
		sb = &strings.Builder{}
		w.texts[p] = sb
	}
	sb.WriteString(delta)
	w.dirty[p] = true
	w.schedule()
}

// schedule arms the flush timer unless it is armed; the caller holds mu.
func (w *writer) schedule() {
	if w.timer == nil && !w.closed {
		w.timerWG.Add(1)
		w.timer = time.AfterFunc(w.interval, func() {
			defer w.timerWG.Done()
			w.flush(false)
		})
	}
}

// syncText copies the buffered text into its part; the caller holds mu.
func (w *writer) syncText(p message.Part) {
	sb := w.texts[p]
	if sb == nil {
		return
	}
	switch p := p.(type) {
	case *message.TextPart:
		p.Text = sb.String()
	case *message.ReasoningPart:
		p.Text = sb.String()
	}
}

type encoded struct {
	part message.Part
	data []byte
}

// flush stores every dirty part and the info when due. With publish, it
// also publishes copies of them on the bus (structural changes); otherwise
// only tool parts are published, since text went out as deltas already.
//
// The info is stored after the parts, so that whoever sees the message
// complete (its message.updated event, or the row) finds its parts final;
// only the message's first write comes first, since its parts refer to it.
func (w *writer) flush(publish bool) {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()

	w.mu.Lock()
	if w.timer != nil && w.timer.Stop() {
		w.timerWG.Done()
	}
	w.timer = nil
	var parts []encoded
	for _, p := range w.parts { // in part order
		if !w.dirty[p] {
			continue
		}
		w.syncText(p)
		data, err := json.Marshal(p)
		if err != nil {
			w.log("encoding a part", "part", p.Base().ID, "err", err)
			continue
		}
		parts = append(parts, encoded{p, data})
	}
	clear(w.dirty)
	var info *message.Info
	if w.infoDue {
		c := *w.info
		info = &c
		w.infoDue = false
	}
	w.mu.Unlock()

	if info != nil && !w.infoStored {
		w.putInfo(info)
		info = nil
	}
	for _, e := range parts {
		if err := w.sessions.putPartData(w.ctx, e.part.Base(), e.data); err != nil {
			w.log("saving a part", "part", e.part.Base().ID, "err", err)
			w.fail(err)
			continue
		}
		_, isTool := e.part.(*message.ToolPart)
		if (publish || isTool) && w.bus != nil {
			if c, err := message.UnmarshalPart(e.data); err == nil {
				w.bus.Publish(w.ctx, bus.Event{Type: bus.PartUpdated, SessionID: w.info.SessionID, Properties: PartEvent{Part: c}})
			}
		}
	}
	if info != nil {
		w.putInfo(info)
	}
}

// putInfo stores and publishes the message info; the caller holds writeMu.
func (w *writer) putInfo(info *message.Info) {
	if err := w.sessions.PutMessage(w.ctx, *info); err != nil {
		w.log("saving a message", "message", info.ID, "err", err)
		w.fail(err)
		return
	}
	w.infoStored = true
}

// fail records the first failed write; the caller holds writeMu.
func (w *writer) fail(err error) {
	if w.failed == nil {
		w.failed = fmt.Errorf("saving the session: %w", err)
	}
}

// failure returns the first write that failed, if one did. A step whose
// parts cannot be saved must end: its tool results would be lost and the
// model asked the same again.
func (w *writer) failure() error {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	return w.failed
}

// emitDelta publishes a text delta at once; it never blocks.
func (w *writer) emitDelta(p message.Part, field, delta string) {
	if w.bus == nil {
		return
	}
	b := p.Base()
	w.bus.Emit(bus.Event{Type: bus.PartDelta, SessionID: b.SessionID, Properties: DeltaEvent{
		SessionID: b.SessionID, MessageID: b.MessageID, PartID: b.ID, Field: field, Delta: delta,
	}})
}

// close flushes what is left and stops the timer for good.
func (w *writer) close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.flush(true)
	w.timerWG.Wait()
}
