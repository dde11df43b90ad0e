package message

// Strings shares equal strings among the messages and parts decoded with
// it (DecodeInfo, DecodePart): a long history repeats its session id, its
// model, agent and working directory, and each message's id in its parts,
// in every row, and decoding each copy on its own would hold them all.
// The zero value is ready to use; a Strings is not safe for concurrent
// use, and holds every distinct value it was given until it is dropped.
type Strings struct {
	m map[string]string
}

// bytes returns b as a string, the one t already holds when it has it.
// A nil t shares nothing.
func (t *Strings) bytes(b []byte) string {
	if t == nil {
		return string(b)
	}
	if s, ok := t.m[string(b)]; ok {
		return s
	}
	s := string(b)
	t.add(s)
	return s
}

// share returns the string equal to s that t holds, or s, which it then
// holds.
func (t *Strings) share(s string) string {
	if t == nil || s == "" {
		return s
	}
	if held, ok := t.m[s]; ok {
		return held
	}
	t.add(s)
	return s
}

func (t *Strings) add(s string) {
	if t.m == nil {
		t.m = make(map[string]string)
	}
	t.m[s] = s
}
