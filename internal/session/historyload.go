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
	h.valid, h.stored, h.sharedLen, h.written, h.from, h.cached = false, nil, 0, nil, "", nil
	h.loads++
	var (
		rev    int64
		from   string
		stored []message.Message
		extra  map[string]*written
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
		stored, extra, err = readHistory(ctx, tx, sessionID, from, runtime.GOMAXPROCS(0)-1)
		return err
	})
	if err != nil {
		return err
	}
	h.valid, h.rev, h.from, h.stored, h.written = true, rev, from, stored, extra
	return nil
}

// readHistory reads the session's messages from the id from on, with their
// parts, and decodes them in place: into one array of messages and one of
// parts, each made at its size (the counts are read in the same
// transaction as the rows; rows beyond them, which that leaves none of,
// would be returned as writes for the first view to decode). The rows are
// streamed from the store and handed in batches to up to workers
// goroutines, which decode them while the rest is still being read; each
// row's JSON is dropped once it is decoded. readHistory returns when every
// goroutine it started has ended. The first decoding error stops the
// reading and is returned; so is a read error, or the end of ctx.
func readHistory(ctx context.Context, tx *store.Tx, sessionID, from string, workers int) ([]message.Message, map[string]*written, error) {
	n, err := tx.CountMessagesFrom(ctx, sessionID, from)
	if err != nil {
		return nil, nil, err
	}
	np, err := tx.CountPartsFrom(ctx, sessionID, from)
	if err != nil {
		return nil, nil, err
	}
	stored := make([]message.Message, n, n+historyRoom)
	parts := make([]message.Part, np)
	extra := map[string]*written{}
	d := newDecoders(ctx, workers)
	var (
		ids   []string // the messages' ids, read while their infos are decoded
		batch decodeBatch
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
		if k := len(ids); k < n {
			batch.infos = append(batch.infos, infoJob{id: r.ID, raw: r.Data, dst: &stored[k].Info})
		} else {
			extra[r.ID] = &written{info: r.Data}
		}
		ids = append(ids, r.ID)
		return flush()
	})
	if err == nil {
		i, j, first := 0, 0, 0 // the message the next part belongs to, the next part, i's first part
		err = tx.EachPartFrom(d.ctx, sessionID, from, func(r store.Part) error {
			for i < len(ids) && ids[i] < r.MessageID {
				i++
				first = j
			}
			if i == len(ids) || ids[i] != r.MessageID {
				return nil // a part without its message is not part of the history
			}
			if i >= n || j >= np {
				w := extra[r.MessageID]
				if w == nil {
					w = &written{}
					extra[r.MessageID] = w
				}
				w.parts = append(w.parts, writtenPart{id: r.ID, data: r.Data})
				return nil
			}
			batch.parts = append(batch.parts, partJob{id: r.ID, raw: r.Data, dst: &parts[j]})
			j++
			stored[i].Parts = parts[first:j:j]
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
	return stored[:min(len(ids), n)], extra, nil
}

// decodeBatch is a run of messages' infos and parts to decode, each with
// where it goes.
type decodeBatch struct {
	infos []infoJob
	parts []partJob
}

type infoJob struct {
	id  string
	raw []byte
	dst *message.Info
}

type partJob struct {
	id  string
	raw []byte
	dst *message.Part
}

func (b decodeBatch) len() int { return len(b.infos) + len(b.parts) }

// decode decodes the batch's infos and parts. The values they repeat (the
// session id, the model, a part's message id, …) are held once per batch.
func (b decodeBatch) decode() error {
	var strs message.Strings
	for _, j := range b.infos {
		if err := decodeInfo(j.id, j.raw, j.dst, &strs); err != nil {
			return err
		}
	}
	for _, j := range b.parts {
		if err := decodePart(j.id, j.raw, j.dst, &strs); err != nil {
			return err
		}
	}
	return nil
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

// decodeInfo decodes the info of message id from its stored JSON into
// dst, which holds the zero Info, sharing the values strs holds (strs may
// be nil). The info's id is the row's.
func decodeInfo(id string, raw []byte, dst *message.Info, strs *message.Strings) error {
	// Info decodes itself: calling it directly spares json.Unmarshal's
	// validation pass, which Info's own decoding makes again.
	if err := dst.Decode(raw, strs); err != nil {
		return fmt.Errorf("decoding message %s: %w", id, err)
	}
	if dst.ID == id {
		dst.ID = id
	}
	return nil
}

// decodePart decodes part id from its stored JSON into dst, sharing the
// values strs holds (strs may be nil). The part's id is the row's.
func decodePart(id string, raw []byte, dst *message.Part, strs *message.Strings) error {
	p, err := message.DecodePart(raw, strs)
	if err != nil {
		return fmt.Errorf("decoding part %s: %w", id, err)
	}
	if base := p.Base(); base.ID == id {
		base.ID = id
	}
	*dst = p
	return nil
}
