package session

import (
	"context"
	"encoding/json"
	"errors"
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

// collectAfter is the size of stored JSON past which reading a history
// ends with a garbage collection. Each row's JSON is garbage once decoded,
// as much again as the history: collected at once, while the history is
// about all that lives, its space serves what the turn makes next (the
// request's messages and body) instead of the heap growing past both
// until the collector's next goal. Below this size the collection would
// cost the first request more than it saves.
const collectAfter = 8 << 20

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
		size   int
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
		stored, size, err = readHistory(ctx, tx, sessionID, from, runtime.GOMAXPROCS(0)-1)
		return err
	})
	if err != nil {
		return err
	}
	h.valid, h.rev, h.from, h.stored = true, rev, from, stored
	if size >= collectAfter {
		runtime.GC()
	}
	return nil
}

// readHistory reads the session's messages from the id from on, with their
// parts, and decodes them in place: into one array of messages and one of
// parts, each made at its size (the counts are read in the same
// transaction as the rows, so they are exact). Only each row's JSON is
// read, which holds its ids: the other columns cost the store a third of
// the read. The rows are streamed from the store and handed in batches to
// up to workers goroutines, which decode them while the rest is still
// being read; each row's JSON is dropped once it is decoded. The parts are
// then given to their messages by the message ids they hold. readHistory
// returns when every goroutine it started has ended. The first decoding
// error stops the reading and is returned, naming the row; so is a read
// error, or the end of ctx. It also returns the size of the JSON read.
func readHistory(ctx context.Context, tx *store.Tx, sessionID, from string, workers int) ([]message.Message, int, error) {
	n, err := tx.CountMessagesFrom(ctx, sessionID, from)
	if err != nil {
		return nil, 0, err
	}
	np, err := tx.CountPartsFrom(ctx, sessionID, from)
	if err != nil {
		return nil, 0, err
	}
	stored := make([]message.Message, n, n+historyRoom)
	parts := make([]message.Part, np)
	d := newDecoders(ctx, workers)
	var (
		k, j  int // the messages and the parts read
		size  int // their JSON's
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
	changed := func() error { return fmt.Errorf("the history of session %s changed while it was read", sessionID) }
	err = tx.EachMessageDataFrom(d.ctx, sessionID, from, func(raw json.RawMessage) error {
		if k == n {
			return changed()
		}
		size += len(raw)
		batch.infos = append(batch.infos, infoJob{at: k, raw: raw, dst: &stored[k].Info})
		k++
		return flush()
	})
	if err == nil {
		err = tx.EachPartDataFrom(d.ctx, sessionID, from, func(raw json.RawMessage) error {
			if j == np {
				return changed()
			}
			size += len(raw)
			batch.parts = append(batch.parts, partJob{at: j, raw: raw, dst: &parts[j]})
			j++
			return flush()
		})
	}
	if err == nil {
		// The rest is too little to be worth handing over.
		err = batch.decode()
	}
	if err := d.close(err); err != nil {
		return nil, 0, nameRow(ctx, tx, sessionID, from, err)
	}
	stored = stored[:k]
	group(stored, parts[:j])
	return stored, size, nil
}

// group gives each message its parts, which are in message id order as
// stored is: a run of parts with one message id becomes that message's.
// A part whose message is not in stored is not part of the history.
func group(stored []message.Message, parts []message.Part) {
	i := 0
	for j := 0; j < len(parts); {
		id := parts[j].Base().MessageID
		first := j
		for j < len(parts) && parts[j].Base().MessageID == id {
			j++
		}
		for i < len(stored) && stored[i].Info.ID < id {
			i++
		}
		if i < len(stored) && stored[i].Info.ID == id {
			stored[i].Parts = parts[first:j:j]
		}
	}
}

// rowError is a stored row of a history that did not decode, by its place
// among the rows read.
type rowError struct {
	part bool
	at   int
	err  error
}

func (e *rowError) Error() string { return e.err.Error() }

func (e *rowError) Unwrap() error { return e.err }

// nameRow returns err, naming the row when it is a rowError: its id is
// read in the same transaction, by its place.
func nameRow(ctx context.Context, tx *store.Tx, sessionID, from string, err error) error {
	var re *rowError
	if !errors.As(err, &re) {
		return err
	}
	what, at := tx.MessageIDAt, "message"
	if re.part {
		what, at = tx.PartIDAt, "part"
	}
	id, ierr := what(ctx, sessionID, from, re.at)
	if ierr != nil || id == "" {
		id = fmt.Sprintf("%d of session %s", re.at+1, sessionID)
	}
	return fmt.Errorf("decoding %s %s: %w", at, id, re.err)
}

// decodeBatch is a run of messages' infos and parts to decode, each with
// where it goes.
type decodeBatch struct {
	infos []infoJob
	parts []partJob
}

type infoJob struct {
	at  int // its place among the messages read
	raw []byte
	dst *message.Info
}

type partJob struct {
	at  int // its place among the parts read
	raw []byte
	dst *message.Part
}

func (b decodeBatch) len() int { return len(b.infos) + len(b.parts) }

// decode decodes the batch's infos and parts. The values they repeat (the
// session id, the model, a part's message id, …) are held once per batch.
// A row that does not decode is returned as a rowError.
func (b decodeBatch) decode() error {
	var strs message.Strings
	for _, j := range b.infos {
		// Info decodes itself: calling it directly spares json.Unmarshal's
		// validation pass, which Info's own decoding makes again.
		if err := j.dst.Decode(j.raw, &strs); err != nil {
			return &rowError{at: j.at, err: err}
		}
	}
	for _, j := range b.parts {
		p, err := message.DecodePart(j.raw, &strs)
		if err != nil {
			return &rowError{part: true, at: j.at, err: err}
		}
		*j.dst = p
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
