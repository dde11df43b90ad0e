package snapshot

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io/fs"
	"strings"
)

// indexMagic starts a saved index. The format is binary because a run
// reads the whole index before its first scan: for 10,000 files the JSON
// form took tens of milliseconds and megabytes of garbage to decode.
//
// After the magic: the worktree, the number of files, then per file its
// path, its stat (size, mtime, ctime, inode, mode) and its entry: a flag
// (0 none, 1 one object, 2 with a chunk list), the content hash and list
// hash as 32 raw bytes each, the size and the mode. Strings are
// length-prefixed, numbers are varints.
const indexMagic = "codeloop-index-1\n"

// encodeIndex returns the saved form of worktree's files.
func encodeIndex(worktree string, files map[string]indexed) []byte {
	b := make([]byte, 0, 64+len(files)*120)
	b = append(b, indexMagic...)
	b = appendString(b, worktree)
	n := 0
	for _, it := range files {
		if it.big || it.stale {
			continue
		}
		if it.Entry == nil || validHash(it.Entry.Hash) && (it.Entry.List == "" || validHash(it.Entry.List)) {
			n++
		}
	}
	b = binary.AppendUvarint(b, uint64(n))
	for rel, it := range files {
		e := it.Entry
		if it.big || it.stale {
			continue // not what the stat says the file holds
		}
		if e != nil && (!validHash(e.Hash) || e.List != "" && !validHash(e.List)) {
			continue // never written by this store; a cache may drop it
		}
		b = appendString(b, rel)
		b = binary.AppendVarint(b, it.Stat.Size)
		b = binary.AppendVarint(b, it.Stat.Mtime)
		b = binary.AppendVarint(b, it.Stat.Ctime)
		b = binary.AppendUvarint(b, it.Stat.Ino)
		b = binary.AppendUvarint(b, uint64(it.Stat.Mode))
		switch {
		case e == nil:
			b = append(b, 0)
			continue
		case e.List == "":
			b = append(b, 1)
			b = appendHash(b, e.Hash)
		default:
			b = append(b, 2)
			b = appendHash(appendHash(b, e.Hash), e.List)
		}
		b = binary.AppendVarint(b, e.Size)
		b = binary.AppendUvarint(b, uint64(e.Mode))
	}
	return b
}

// validHash reports whether h is the hex form of a sha256.
func validHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for i := range len(h) {
		if c := h[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// appendHash appends the 32 bytes of a hash checked by validHash.
func appendHash(b []byte, h string) []byte {
	b, _ = hex.AppendDecode(b, []byte(h))
	return b
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// errBadIndex says a saved index is not in the current format or is cut
// short.
var errBadIndex = errors.New("not a snapshot index")

// decodeIndex reads a saved index. Its paths and hashes are made in one
// string and its entries in one array, so decoding allocates a few blocks
// rather than a few objects per file; the file's bytes are garbage once it
// returns.
func decodeIndex(data []byte) (worktree string, files map[string]indexed, err error) {
	if len(data) < len(indexMagic) || string(data[:len(indexMagic)]) != indexMagic {
		return "", nil, errBadIndex
	}
	r := indexReader{s: data[len(indexMagic):]}
	worktree = string(r.bytes())
	n := r.uvarint()
	if r.bad || n > uint64(len(r.s)) {
		return "", nil, errBadIndex
	}
	body := indexReader{s: r.s}
	paths, entries, hashes, ok := body.measure(n)
	if !ok {
		return "", nil, errBadIndex
	}
	r.paths.Grow(paths)
	r.hashes.Grow(hashes * 64)
	ents := make([]Entry, 0, entries)
	files = make(map[string]indexed, n)
	for range n {
		rel := r.str()
		st := stat{Size: r.varint(), Mtime: r.varint(), Ctime: r.varint(), Ino: r.uvarint(), Mode: fs.FileMode(r.uvarint())}
		var e *Entry
		switch r.byte() {
		case 0:
		case 1:
			ents = append(ents, Entry{Hash: r.hash()})
			e = &ents[len(ents)-1]
		case 2:
			ents = append(ents, Entry{Hash: r.hash(), List: r.hash()})
			e = &ents[len(ents)-1]
		default:
			r.bad = true
		}
		if e != nil {
			e.Size, e.Mode = r.varint(), fs.FileMode(r.uvarint())
		}
		if r.bad {
			return "", nil, errBadIndex
		}
		files[rel] = indexed{Stat: st, Entry: e}
	}
	return worktree, files, nil
}

// measure reads n files' fields to learn how many bytes their paths
// take, how many of them have an entry and how many hashes those hold;
// false when they do not read.
func (r *indexReader) measure(n uint64) (paths, entries, hashes int, ok bool) {
	for range n {
		paths += len(r.bytes())
		for range 5 {
			r.uvarint()
		}
		h := 0
		switch r.byte() {
		case 0:
		case 1:
			h = 1
		case 2:
			h = 2
		default:
			r.bad = true
		}
		if h > 0 {
			if len(r.s) < h*32 {
				return 0, 0, 0, false
			}
			r.s = r.s[h*32:]
			entries++
			hashes += h
			r.uvarint()
			r.uvarint()
		}
		if r.bad {
			return 0, 0, 0, false
		}
	}
	return paths, entries, hashes, true
}

// indexReader reads the fields of a saved index; bad is set once a field
// runs past the end.
type indexReader struct {
	s   []byte
	bad bool
	// paths and hashes hold the strings made: each is a slice of one of
	// them, which a builder never changes once written. The paths are
	// apart from the hashes so that the keys of the map lie together.
	paths, hashes strings.Builder
}

func (r *indexReader) uvarint() uint64 {
	var v uint64
	for i, shift := 0, 0; i < len(r.s) && shift < 64; i, shift = i+1, shift+7 {
		c := r.s[i]
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			r.s = r.s[i+1:]
			return v
		}
	}
	r.bad = true
	return 0
}

func (r *indexReader) varint() int64 {
	u := r.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

// bytes reads a length-prefixed string's bytes.
func (r *indexReader) bytes() []byte {
	n := r.uvarint()
	if r.bad || n > uint64(len(r.s)) {
		r.bad = true
		return nil
	}
	b := r.s[:n]
	r.s = r.s[n:]
	return b
}

func (r *indexReader) str() string {
	return keep(&r.paths, r.bytes())
}

// keep returns b as a string held in t.
func keep(t *strings.Builder, b []byte) string {
	start := t.Len()
	t.Write(b)
	return t.String()[start:]
}

func (r *indexReader) byte() byte {
	if len(r.s) == 0 {
		r.bad = true
		return 0
	}
	c := r.s[0]
	r.s = r.s[1:]
	return c
}

func (r *indexReader) hash() string {
	if len(r.s) < 32 {
		r.bad = true
		return ""
	}
	var h [64]byte
	hex.Encode(h[:], r.s[:32])
	r.s = r.s[32:]
	return keep(&r.hashes, h[:])
}
