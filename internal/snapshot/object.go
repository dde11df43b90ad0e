package snapshot

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Entry is one file's state in a checkpoint: its content (by hash) and
// mode. A symbolic link's content is its target.
type Entry struct {
	Hash string      `json:"hash"`           // sha256 of the whole content
	List string      `json:"list,omitempty"` // the chunk list object, when there are several chunks
	Size int64       `json:"size"`
	Mode fs.FileMode `json:"mode"`
}

// same reports whether two entries (nil: absent) have the same content and
// mode.
func same(a, b *Entry) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Hash == b.Hash && a.Mode == b.Mode
}

// CorruptError says that a stored object does not hold what its name says.
type CorruptError struct {
	Object string
	Reason string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("snapshot object %s is damaged (%s): run `codeloop debug snapshot verify`", e.Object, e.Reason)
}

func hashOf(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// objectPath is where the object named h is kept.
func (s *Store) objectPath(h string) string {
	return filepath.Join(s.dir, "objects", h[:2], h[2:])
}

// putObject keeps raw under its hash h unless it is kept already, and
// returns how many bytes the store grew by.
func (s *Store) putObject(h string, raw []byte) (int64, error) {
	path := s.objectPath(h)
	if _, err := os.Lstat(path); err == nil {
		return 0, nil
	}
	enc, err := s.encoder()
	if err != nil {
		return 0, err
	}
	packed := enc.EncodeAll(raw, make([]byte, 0, len(raw)/2+64))
	if err := writeFileAtomic(path, packed); err != nil {
		return 0, err
	}
	return int64(len(packed)), nil
}

// getObject reads the object named h and checks its bytes against the name.
func (s *Store) getObject(h string) ([]byte, error) {
	if len(h) != 64 || strings.Trim(h, "0123456789abcdef") != "" {
		return nil, &CorruptError{Object: h, Reason: "not an object name"}
	}
	packed, err := os.ReadFile(s.objectPath(h))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &CorruptError{Object: h, Reason: "missing"}
	}
	if err != nil {
		return nil, err
	}
	dec, err := s.decoder()
	if err != nil {
		return nil, err
	}
	raw, err := dec.DecodeAll(packed, nil)
	if err != nil {
		return nil, &CorruptError{Object: h, Reason: err.Error()}
	}
	if hashOf(raw) != h {
		return nil, &CorruptError{Object: h, Reason: "content does not match its hash"}
	}
	return raw, nil
}

// putContent keeps content (with mode) and returns its entry and how many
// bytes the store grew by.
func (s *Store) putContent(content []byte, mode fs.FileMode) (*Entry, int64, error) {
	e := &Entry{Hash: hashOf(content), Size: int64(len(content)), Mode: mode}
	parts := chunks(content)
	if len(parts) <= 1 {
		n, err := s.putObject(e.Hash, content)
		return e, n, err
	}
	var grown int64
	list := make([]byte, 0, len(parts)*sha256.Size)
	for _, p := range parts {
		sum := sha256.Sum256(p)
		n, err := s.putObject(hex.EncodeToString(sum[:]), p)
		if err != nil {
			return nil, grown, err
		}
		grown += n
		list = append(list, sum[:]...)
	}
	e.List = hashOf(list)
	n, err := s.putObject(e.List, list)
	return e, grown + n, err
}

// objects returns the names of the objects an entry needs, list first.
func (s *Store) objects(e *Entry) ([]string, error) {
	if e.List == "" {
		return []string{e.Hash}, nil
	}
	list, err := s.getObject(e.List)
	if err != nil {
		return nil, err
	}
	if len(list)%sha256.Size != 0 {
		return nil, &CorruptError{Object: e.List, Reason: "not a chunk list"}
	}
	out := []string{e.List}
	for i := 0; i < len(list); i += sha256.Size {
		out = append(out, hex.EncodeToString(list[i:i+sha256.Size]))
	}
	return out, nil
}

// content reads back an entry's content and checks it against its hash.
func (s *Store) content(e *Entry) ([]byte, error) {
	names, err := s.objects(e)
	if err != nil {
		return nil, err
	}
	if e.List == "" {
		return s.getObject(e.Hash)
	}
	out := make([]byte, 0, e.Size)
	for _, h := range names[1:] {
		b, err := s.getObject(h)
		if err != nil {
			return nil, err
		}
		out = append(out, b...)
	}
	if hashOf(out) != e.Hash {
		return nil, &CorruptError{Object: e.List, Reason: "chunks do not add up to the file"}
	}
	return out, nil
}

// tmpPrefix starts the names of files being written, followed by the
// writing process's id; a crash may leave them behind, and Open removes
// those whose process has ended.
const tmpPrefix = ".tmp-"

// tmpPattern is the CreateTemp pattern of this process's temporary files.
func tmpPattern() string { return tmpPrefix + strconv.Itoa(os.Getpid()) + "-*" }

// writeFileAtomic writes b to path through a temporary file in the same
// directory and a rename, so path is either absent or whole.
func writeFileAtomic(path string, b []byte) error {
	_, err := writeFileAtomicID(path, b)
	return err
}

// fileID tells one version of a file from another: a file written again
// through a rename has another inode, and a file written in place another
// modification time.
type fileID struct {
	Ino   uint64 `json:"ino"`
	Size  int64  `json:"size"`
	Mtime int64  `json:"mtime"`
}

func idOf(info fs.FileInfo) fileID {
	st := statOf(info)
	return fileID{Ino: st.Ino, Size: st.Size, Mtime: st.Mtime}
}

// readFileID reads the file at path and returns the identity of what it
// read.
func readFileID(path string) ([]byte, fileID, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fileID{}, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fileID{}, err
	}
	b := make([]byte, 0, max(info.Size(), 0)+1) // one read past the end sees it
	for {
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, idOf(info), nil
		}
		if err != nil {
			return nil, fileID{}, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // it grew since the stat
		}
	}
}

// writeFileAtomicID is writeFileAtomic, and returns the identity of the
// file it wrote.
func writeFileAtomicID(path string, b []byte) (fileID, error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, tmpPattern())
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fileID{}, err
		}
		f, err = os.CreateTemp(dir, tmpPattern())
	}
	if err != nil {
		return fileID{}, err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(f.Name())
		return fileID{}, err
	}
	info, err := f.Stat()
	if err == nil {
		err = f.Close()
	} else {
		f.Close()
	}
	if err != nil {
		os.Remove(f.Name())
		return fileID{}, err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return fileID{}, err
	}
	return idOf(info), nil
}

// excludeID is the identity of worktree's .git/info/exclude, zero when
// there is none.
func excludeID(worktree string) fileID {
	info, err := os.Stat(filepath.Join(worktree, ".git", "info", "exclude"))
	if err != nil {
		return fileID{}
	}
	return idOf(info)
}
