// Package id makes the sortable identifiers of sessions, messages, parts and
// every other record codeloop stores.
//
// An identifier is a prefix, an underscore, twelve hex digits of time and
// counter, and fourteen random base62 characters. Ascending identifiers sort
// in creation order; descending ones (sessions) sort newest first. Within one
// process identifiers of both kinds are strictly monotonic, even when many are
// made within one millisecond, so the store can order by identifier alone and
// never by timestamp.
//
// The package may be imported by any other package; it imports nothing of
// codeloop's.
package id

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
)

// Prefix names the kind of record an identifier belongs to.
type Prefix string

// The prefixes codeloop uses, matching OpenCode's so exported sessions
// interchange.
const (
	Session    Prefix = "ses"
	Message    Prefix = "msg"
	Part       Prefix = "prt"
	Permission Prefix = "per"
	Question   Prefix = "que"
	ToolOutput Prefix = "tool"
	Project    Prefix = "prj"
	Event      Prefix = "evt"
	Snapshot   Prefix = "snp"
)

const (
	counterBits = 6  // values per millisecond before the time part borrows; 42 bits of milliseconds last until 2109
	timeHex     = 12 // hex digits of the 48-bit time-and-counter part
	randLen     = 14 // base62 characters of the random part
	base62      = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	mask48      = 1<<48 - 1
)

// clock hands out time-and-counter values, each greater than the last.
type clock struct {
	last atomic.Uint64 // the most recent value handed out
}

// process is the package's only state: like a monotonic clock it must be
// shared by the whole process, or two callers could be given identifiers
// out of order.
var process clock

// next returns a 48-bit value greater than every value the clock returned
// before: the current millisecond shifted left by the counter bits, or one
// more than the previous value when the time has not moved on.
func (c *clock) next(now time.Time) uint64 {
	want := uint64(now.UnixMilli()) << counterBits
	for {
		prev := c.last.Load()
		v := max(want, prev+1)
		if c.last.CompareAndSwap(prev, v) {
			return v & mask48
		}
	}
}

// Ascending returns a new identifier that sorts after every identifier made
// before it in this process.
func Ascending(p Prefix) string { return format(p, process.next(time.Now()), false) }

// Descending returns a new identifier that sorts before every identifier made
// before it in this process, so that a plain ascending sort lists the newest
// first.
func Descending(p Prefix) string { return format(p, process.next(time.Now()), true) }

func format(p Prefix, v uint64, descending bool) string {
	if descending {
		v = ^v & mask48
	}
	var b strings.Builder
	b.Grow(len(p) + 1 + timeHex + randLen)
	b.WriteString(string(p))
	b.WriteByte('_')
	var raw [6]byte
	for i := range raw {
		raw[i] = byte(v >> (8 * (5 - i)))
	}
	b.WriteString(hex.EncodeToString(raw[:]))
	var rnd [randLen]byte
	_, _ = rand.Read(rnd[:]) // crypto/rand.Read never fails
	for _, c := range rnd {
		b.WriteByte(base62[int(c)%len(base62)])
	}
	return b.String()
}

// Check reports whether s is a well-formed identifier with prefix p.
func Check(p Prefix, s string) error {
	rest, ok := strings.CutPrefix(s, string(p)+"_")
	if !ok {
		return fmt.Errorf("identifier %q does not start with %q", s, string(p)+"_")
	}
	if len(rest) != timeHex+randLen {
		return fmt.Errorf("identifier %q has %d characters after the prefix, want %d", s, len(rest), timeHex+randLen)
	}
	if _, err := hex.DecodeString(rest[:timeHex]); err != nil {
		return fmt.Errorf("identifier %q: time part is not hex", s)
	}
	return nil
}

// Time returns the creation time encoded in an identifier made by Ascending
// or Descending, to the millisecond.
func Time(s string) (time.Time, bool) {
	i := strings.IndexByte(s, '_')
	if i < 0 || len(s) < i+1+timeHex {
		return time.Time{}, false
	}
	raw, err := hex.DecodeString(s[i+1 : i+1+timeHex])
	if err != nil {
		return time.Time{}, false
	}
	var v uint64
	for _, c := range raw {
		v = v<<8 | uint64(c)
	}
	if Prefix(s[:i]) == Session {
		v = ^v & mask48
	}
	return time.UnixMilli(int64(v >> counterBits)), true
}
