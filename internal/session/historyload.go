package session

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/store"
)

// loadBatch is how many messages and parts the reader of a history hands
// to a decoding goroutine at once. A history shorter than one batch is
// decoded by the reader alone.
const loadBatch = 256

// load reads the session's history into h: from its last completed
// compaction on when recent is true, else all of it. The messages and
// parts are decoded while they are read (see readHistory), so h holds no
// undecoded row when load returns without error.
func (s *Sessions) load(ctx context.Context, sessionID string, h *history, recent bool) error {
	h.valid, h.msgs, h.stored, h.shared, h.from, h.cached = false, nil, nil, false, "", nil
	h.loads++
	var (
		rev    int64
		from   string
		msgs   []*heldMessage
		stored []message.Message
	)
	err := s.store.Read(ctx, func(tx *store.Tx) error {
		var err error
		if rev, err = tx.SessionRevision(ctx, sessionID); err != nil {
			return err
		}
		if recent {
			if from, err = recentStart(ctx, tx, sessionID); err != nil {
				return err
			}
		}
		// The reader keeps a processor busy itself.
		msgs, stored, err = readHistory(ctx, tx, sessionID, from, runtime.GOMAXPROCS(0)-1)
		return err
	})
	if err != nil {
		return err
	}
	h.valid, h.rev, h.from, h.msgs, h.stored = true, rev, from, msgs, stored
	return nil
}

// readHistory reads the session's messages from the id from on, with their
// parts, and decodes them: each message's info into its element of the
// array it returns beside the held messages (their parts are listed by the
// first view). The rows are streamed from the store and handed in batches
// to up to workers goroutines, which decode them while the rest is still
// being read; each row's JSON is dropped once it is decoded. readHistory
// returns when every goroutine it started has ended. The first decoding
// error stops the reading and is returned; so is a read error, or the end
// of ctx.
func readHistory(ctx context.Context, tx *store.Tx, sessionID, from string, workers int) ([]*heldMessage, []message.Message, error) {
	n, err := tx.CountMessagesFrom(ctx, sessionID, from)
	if err != nil {
		return nil, nil, err
	}
	// The infos are decoded in place: the array is made once, at its
	// size. (The count and the rows are read in one transaction; a
	// message beyond the count would be left to the first view.)
	stored := make([]message.Message, n)
	d := newDecoders(ctx, workers)
	var (
		msgs  []*heldMessage
		batch decodeBatch
		i     int // the message the next part belongs to, or after it
	)
	flush := func() error {
		if batch.len() < loadBatch {
			return nil
		}
		err := d.send(batch)
		batch = decodeBatch{}
		return err
	}
	err = tx.EachMessageFrom(d.ctx, sessionID, from, func(r store.Message) error {
		m := &heldMessage{id: r.ID, raw: r.Data, at: -1, partsChanged: true}
		if k := len(msgs); k < len(stored) {
			m.at = k
			batch.msgs = append(batch.msgs, m)
			batch.infos = append(batch.infos, &stored[k].Info)
		}
		msgs = append(msgs, m)
		return flush()
	})
	if err == nil {
		err = tx.EachPartFrom(d.ctx, sessionID, from, func(r store.Part) error {
			for i < len(msgs) && msgs[i].id < r.MessageID {
				i++
			}
			if i == len(msgs) || msgs[i].id != r.MessageID {
				return nil // a part without its message is not part of the history
			}
			p := &heldPart{id: r.ID, raw: r.Data}
			msgs[i].parts = append(msgs[i].parts, p)
			batch.parts = append(batch.parts, p)
			return flush()
		})
	}
	if err == nil {
		// The rest is too little to be worth handing over.
		err = batch.decode()
	}
	if err := d.close(err); err != nil {
		return nil, nil, err
	}
	return msgs, stored[:min(len(msgs), len(stored))], nil
}

// decodeBatch is a run of held messages and parts to decode, with where
// each message's info goes. The messages' parts are not part of it: they
// come in batches of their own.
type decodeBatch struct {
	msgs  []*heldMessage
	infos []*message.Info
	parts []*heldPart
}

func (b decodeBatch) len() int { return len(b.msgs) + len(b.parts) }

// decode decodes the batch's messages and parts. The values they repeat
// (the session id, the model, a part's message id, …) are held once per
// batch.
func (b decodeBatch) decode() error {
	var strs message.Strings
	for i, m := range b.msgs {
		if err := decodeInfo(m, b.infos[i], &strs); err != nil {
			return err
		}
	}
	return decodeParts(b.parts, &strs)
}

// decoders is the goroutines that decode a history while it is read. They
// start with the first batch sent and end when close returns.
type decoders struct {
	ctx     context.Context // ends when a batch fails to decode, or with the reader's context
	cancel  context.CancelCauseFunc
	workers int
	jobs    chan decodeBatch
	wg      sync.WaitGroup

	mu  sync.Mutex
	err error // the first decoding error
}

func newDecoders(ctx context.Context, workers int) *decoders {
	d := &decoders{workers: max(workers, 1)}
	d.ctx, d.cancel = context.WithCancelCause(ctx)
	return d
}

// send hands a batch to the goroutines, starting them on the first call.
// It returns the cause of d.ctx's end instead when the decoding stopped.
func (d *decoders) send(b decodeBatch) error {
	if d.jobs == nil {
		d.jobs = make(chan decodeBatch, d.workers)
		for range d.workers {
			d.wg.Go(d.work)
		}
	}
	select {
	case d.jobs <- b:
		return nil
	case <-d.ctx.Done():
		return context.Cause(d.ctx)
	}
}

// work decodes batches until the reader closes the queue. Once the
// decoding has stopped it only drains the queue.
func (d *decoders) work() {
	for b := range d.jobs {
		if d.ctx.Err() != nil {
			continue
		}
		if err := b.decode(); err != nil {
			d.mu.Lock()
			if d.err == nil {
				d.err = err
			}
			d.mu.Unlock()
			d.cancel(err)
		}
	}
}

// close ends the goroutines once they have decoded what was sent, or at
// once when readErr (the reader's own error) is not nil, and waits for
// them. It returns the first decoding error, else readErr.
func (d *decoders) close(readErr error) error {
	if readErr != nil {
		d.cancel(readErr)
	}
	if d.jobs != nil {
		close(d.jobs)
		d.wg.Wait()
	}
	d.cancel(nil)
	if d.err != nil {
		return d.err
	}
	return readErr
}

// decodeInfo decodes a message's info into dst, which holds the zero
// Info, and marks it decoded, sharing the values strs holds (strs may be
// nil). The info's id is the row's.
func decodeInfo(m *heldMessage, dst *message.Info, strs *message.Strings) error {
	// Info decodes itself: calling it directly spares json.Unmarshal's
	// validation pass, which Info's own decoding makes again.
	if err := dst.Decode(m.raw, strs); err != nil {
		return fmt.Errorf("decoding message %s: %w", m.id, err)
	}
	if dst.ID == m.id {
		dst.ID = m.id
	}
	m.raw = nil
	return nil
}

// decodeParts decodes the pending parts of a list, sharing the values strs
// holds (strs may be nil). A part's id is its row's.
func decodeParts(parts []*heldPart, strs *message.Strings) error {
	for _, p := range parts {
		if p.raw == nil {
			continue
		}
		d, err := message.DecodePart(p.raw, strs)
		if err != nil {
			return fmt.Errorf("decoding part %s: %w", p.id, err)
		}
		if base := d.Base(); base.ID == p.id {
			base.ID = p.id
		}
		p.part, p.raw = d, nil
	}
	return nil
}
