package snapshot

// Chunk sizes of the content-defined chunking: no cut before minChunk
// bytes, a forced cut at maxChunk, about avgChunk bytes on average.
const (
	minChunk = 2 << 10
	avgChunk = 8 << 10
	maxChunk = 64 << 10
	cutMask  = avgChunk - 1
)

// gear is the table of the rolling gear hash, fixed so that the same bytes
// are always cut at the same places.
var gear = func() (t [256]uint64) {
	x := uint64(0x9e3779b97f4a7c15)
	for i := range t {
		// splitmix64
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		t[i] = z ^ (z >> 31)
	}
	return t
}()

// cut returns the length of the first chunk of b: a place where the gear
// hash of the bytes before it has its low bits zero, between minChunk and
// maxChunk, or all of b when it is shorter. The hash depends on the last 64
// bytes only, so after an insertion the cuts fall where they fell before.
func cut(b []byte) int {
	if len(b) <= minChunk {
		return len(b)
	}
	n := min(len(b), maxChunk)
	var h uint64
	for i := minChunk; i < n; i++ {
		h = h<<1 + gear[b[i]] // the last 64 bytes decide
		if h&cutMask == 0 {
			return i + 1
		}
	}
	return n
}

// chunks splits b into content-defined chunks.
func chunks(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		n := cut(b)
		out = append(out, b[:n])
		b = b[n:]
	}
	return out
}
