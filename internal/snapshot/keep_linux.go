//go:build linux

package snapshot

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The keeper's environment: its socket and its token.
const (
	keeperSocketEnv = "CODELOOP_SNAPSHOT_KEEPER"
	keeperTokenEnv  = "CODELOOP_SNAPSHOT_KEEPER_TOKEN"
)

// keeperIdle is how long a keeper waits for a run before it exits.
const keeperIdle = 15 * time.Minute

// keeperMaxBacklog bounds what a keeper holds of the events it read: past
// it, it drops the watch and the next run walks.
const keeperMaxBacklog = 8 << 20

// keepMagic starts a keeper's answers. A run asks with one byte: opTake
// (the answer carries the watch and its events, or says there is none) or
// opGive (the question carries the watch; the answer says the keeper's
// count of watchers given).
const (
	keepMagic = "codeloop-keep-1\n"
	opTake    = 'T'
	opGive    = 'G'
	opQuit    = 'Q' // the keeper exits
)

// Main runs this process as a snapshot keeper when it was started as one
// (see Options.Keeper), and never returns then; otherwise it returns at
// once. Call it first in main.
func Main(args []string) {
	sock := os.Getenv(keeperSocketEnv)
	if sock == "" {
		return
	}
	runKeeper(sock, os.Getenv(keeperTokenEnv), 3, 4)
	os.Exit(0)
}

// watches returns the watch descriptors and their directories.
func (w *watcher) watches() map[int]string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make(map[int]string, len(w.dirs))
	for wd, d := range w.dirs {
		out[wd] = d
	}
	return out
}

// handOver gives ix's watcher to the project's keeper, starting one when
// none answers, and leaves the keep file for the next run; false when it
// did not, and the watcher is still the caller's to close. ix.mu is held
// and the index saved.
func (s *Store) handOver(ix *index) bool {
	w := ix.watch
	if s.opts.Keeper == "" || w == nil || !ix.walked || len(ix.skips) > 0 || !ix.loaded {
		return false
	}
	w.mu.Lock()
	broken, fd := w.broken, w.fd
	w.mu.Unlock()
	if broken || fd < 0 {
		return false
	}
	sock := s.keepSocket(ix.worktree)
	token, gen, ok := "", uint64(0), false
	if cfd := dial(sock); cfd >= 0 {
		token, gen, ok = give(cfd, fd)
		unix.Close(cfd)
	} else {
		token, gen, ok = s.startKeeper(ix, fd)
	}
	if !ok {
		return false
	}
	b, err := json.Marshal(keepStateOf(ix, token, gen))
	if err != nil || writeFileAtomic(s.keepFile(ix.worktree), b) != nil {
		return false
	}
	w.close() // the keeper holds its own copy
	return true
}

// give hands the watch fd to the keeper at cfd and returns its token and
// count of watchers given.
func give(cfd, fd int) (string, uint64, bool) {
	unix.SetsockoptTimeval(cfd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Sec: 2})
	if _, err := sendmsg(cfd, []byte{opGive}, unix.UnixRights(fd)); err != nil {
		return "", 0, false
	}
	msg, ok := readAll(cfd, nil)
	token, rest, ok2 := parseAnswer(msg)
	gen, n := binary.Uvarint(rest)
	if !ok || !ok2 || n <= 0 {
		return "", 0, false
	}
	return token, gen, true
}

// startKeeper starts a keeper with the watch fd and waits until it
// listens.
func (s *Store) startKeeper(ix *index, fd int) (string, uint64, bool) {
	var tok [16]byte
	rand.Read(tok[:])
	token := hex.EncodeToString(tok[:])
	dfd, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return "", 0, false
	}
	watch := os.NewFile(uintptr(dfd), "inotify") // a copy: closing it leaves the watcher's
	defer watch.Close()
	readyR, readyW, err := os.Pipe()
	if err != nil {
		return "", 0, false
	}
	defer readyR.Close()
	cmd := exec.Command(s.opts.Keeper, "-test.run=^$") // a test binary that is no keeper runs nothing
	cmd.Env = []string{keeperSocketEnv + "=" + s.keepSocket(ix.worktree), keeperTokenEnv + "=" + token}
	cmd.ExtraFiles = []*os.File{watch, readyW}
	cmd.Dir = "/" // it holds no directory of the project
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	readyW.Close()
	if err != nil {
		return "", 0, false
	}
	cmd.Process.Release()
	var b [1]byte
	if n, _ := readyR.Read(b[:]); n != 1 {
		return "", 0, false // it did not listen: another keeper does, or it failed
	}
	return token, 1, true
}

// keeper is the state of a keeper process.
type keeper struct {
	token   string
	fd      int // the watch; -1 while a run has it
	gen     uint64
	backlog []byte
}

// runKeeper is the keeper: it listens at sock, reads the events of the
// watch fd while it holds it, and lends it to runs, until no run came for
// keeperIdle, the socket is gone (its store removed; it looks every five
// seconds) or a run says to exit. It writes a byte to ready once it
// listens.
func runKeeper(sock, token string, fd, ready int) {
	lfd, ok := listen(sock)
	if !ok {
		unix.Close(ready)
		return
	}
	defer unix.Close(lfd)
	unix.Write(ready, []byte{1})
	unix.Close(ready)
	var own unix.Stat_t
	if unix.Stat(sock, &own) != nil {
		return
	}
	gone := func() bool {
		var st unix.Stat_t
		return unix.Stat(sock, &st) != nil || st.Ino != own.Ino
	}
	defer func() {
		if !gone() {
			os.Remove(sock)
		}
	}()
	unix.SetNonblock(fd, true) // read until there is nothing more, never wait
	k := &keeper{token: token, fd: fd, gen: 1}
	buf := make([]byte, 64<<10)
	deadline := time.Now().Add(keeperIdle)
	for time.Now().Before(deadline) && !gone() {
		fds := []unix.PollFd{{Fd: int32(lfd), Events: unix.POLLIN}, {Fd: int32(k.fd), Events: unix.POLLIN}}
		if k.fd < 0 {
			fds = fds[:1]
		}
		if _, err := unix.Poll(fds, 5_000); err != nil && !errors.Is(err, unix.EINTR) { // then look whether the socket is still there
			return
		}
		if len(fds) > 1 && fds[1].Revents != 0 {
			k.read(buf)
		}
		if fds[0].Revents != 0 {
			if cfd, _, err := unix.Accept4(lfd, unix.SOCK_CLOEXEC); err == nil {
				quit := k.serve(cfd)
				unix.Close(cfd)
				if quit {
					return
				}
				deadline = time.Now().Add(keeperIdle)
			}
		}
	}
}

// read reads the watch's queued events into the backlog, dropping the
// watch when they say it lost track or there are too many.
func (k *keeper) read(buf []byte) {
	for {
		n, err := unix.Read(k.fd, buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if errors.Is(err, unix.EAGAIN) {
			return // all read
		}
		if err != nil || n <= 0 {
			k.drop() // not a watch it can read
			return
		}
		if lost(buf[:n]) || len(k.backlog)+n > keeperMaxBacklog {
			k.drop()
			return
		}
		k.backlog = append(k.backlog, buf[:n]...)
	}
}

// drop closes the watch: the next run walks.
func (k *keeper) drop() {
	if k.fd >= 0 {
		unix.Close(k.fd)
	}
	k.fd, k.backlog = -1, nil
}

// serve answers one run's question; true when it says to exit.
func (k *keeper) serve(cfd int) bool {
	unix.SetsockoptTimeval(cfd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Sec: 2})
	op, fd := receiveOp(cfd)
	answer := []byte(keepMagic + k.token + "\n")
	if op == opTake && k.fd >= 0 {
		k.read(make([]byte, 64<<10)) // what came since the last poll
	}
	switch {
	case op == opTake && k.fd >= 0:
		answer = binary.AppendUvarint(answer, k.gen)
		answer = binary.AppendUvarint(answer, uint64(len(k.backlog)))
		answer = append(answer, k.backlog...)
		if send(cfd, answer, k.fd) {
			k.drop() // the run has it now
		}
	case op == opTake:
		send(cfd, append(answer, 0), -1) // none: generation 0
	case op == opGive && fd >= 0:
		k.drop()
		unix.SetNonblock(fd, true)
		k.fd, k.backlog = fd, nil
		k.gen++
		send(cfd, binary.AppendUvarint(answer, k.gen), -1)
	case fd >= 0:
		unix.Close(fd)
	}
	return op == opQuit
}

// stopKeeper makes the keeper of worktree exit, if one runs.
func (s *Store) stopKeeper(worktree string) {
	if cfd := dial(s.keepSocket(worktree)); cfd >= 0 {
		unix.Write(cfd, []byte{opQuit})
		readAll(cfd, nil) // until it closes
		unix.Close(cfd)
	}
}

// receiveOp reads a run's question and the descriptor it carries (-1 when
// none).
func receiveOp(cfd int) (byte, int) {
	var b [1]byte
	oob := make([]byte, unix.CmsgSpace(4))
	n, oobn, err := recvmsg(cfd, b[:], oob)
	if err != nil || n != 1 {
		return 0, -1
	}
	return b[0], rightsFd(oob[:oobn])
}

// rightsFd is the one descriptor a control message carries; -1 when none.
func rightsFd(oob []byte) int {
	cmsgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil || len(cmsgs) != 1 {
		return -1
	}
	fds, err := unix.ParseUnixRights(&cmsgs[0])
	if err != nil {
		return -1
	}
	if len(fds) != 1 {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return -1
	}
	return fds[0]
}

// lost reports whether the events in buf say the watch lost track.
func lost(buf []byte) bool {
	for off := 0; off+unix.SizeofInotifyEvent <= len(buf); {
		if lostTrack(binary.NativeEndian.Uint32(buf[off+4:])) {
			return true
		}
		off += unix.SizeofInotifyEvent + int(binary.NativeEndian.Uint32(buf[off+12:]))
	}
	return false
}

// listen makes the keeper's socket; false when another keeper holds it.
func listen(sock string) (int, bool) {
	for range 2 {
		lfd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return -1, false
		}
		err = atSocket(sock, func(addr string) error { return unix.Bind(lfd, &unix.SockaddrUnix{Name: addr}) })
		if err == nil && unix.Listen(lfd, 4) == nil {
			return lfd, true
		}
		unix.Close(lfd)
		if !errors.Is(err, unix.EADDRINUSE) {
			return -1, false
		}
		if cfd := dial(sock); cfd >= 0 {
			unix.Close(cfd)
			return -1, false // another keeper answers there
		}
		os.Remove(sock) // left by a keeper that was killed
	}
	return -1, false
}

// atSocket calls f with an address for the socket path sock: sock itself,
// or, when it is longer than a socket address may be, the same file
// reached through the descriptor of its directory.
func atSocket(sock string, f func(addr string) error) error {
	if len(sock) < 100 {
		return f(sock)
	}
	dfd, err := unix.Open(filepath.Dir(sock), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	return f("/proc/self/fd/" + strconv.Itoa(dfd) + "/" + filepath.Base(sock))
}

// dial connects to the socket at sock; -1 when nothing answers.
func dial(sock string) int {
	cfd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	if err := atSocket(sock, func(addr string) error { return unix.Connect(cfd, &unix.SockaddrUnix{Name: addr}) }); err != nil {
		unix.Close(cfd)
		return -1
	}
	return cfd
}

// send writes msg to cfd, with fd attached unless it is -1.
func send(cfd int, msg []byte, fd int) bool {
	var oob []byte
	if fd >= 0 {
		oob = unix.UnixRights(fd)
	}
	n, err := sendmsg(cfd, msg, oob)
	for err == nil && n < len(msg) {
		msg = msg[n:]
		n, err = sendmsg(cfd, msg, nil)
	}
	return err == nil
}

// recvmsg receives a message on the socket cfd, with the descriptors it
// carries in oob. A signal that interrupts it does not end it: the calls
// on a socket with a receive timeout fail with EINTR instead of restarting,
// and a Go process is signalled often.
func recvmsg(cfd int, p, oob []byte) (n, oobn int, err error) {
	for {
		n, oobn, _, _, err = unix.Recvmsg(cfd, p, oob, unix.MSG_CMSG_CLOEXEC)
		if !errors.Is(err, unix.EINTR) {
			return n, oobn, err
		}
	}
}

// sendmsg sends msg on the socket cfd, with the descriptors of oob, and is
// tried again when a signal interrupts it.
func sendmsg(cfd int, msg, oob []byte) (int, error) {
	for {
		n, err := unix.SendmsgN(cfd, msg, oob, nil, 0)
		if !errors.Is(err, unix.EINTR) {
			return n, err
		}
	}
}

// readAll reads cfd to its end after msg; false on an error.
func readAll(cfd int, msg []byte) ([]byte, bool) {
	buf := make([]byte, 64<<10)
	for {
		n, err := unix.Read(cfd, buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, false
		}
		if n == 0 {
			return msg, true
		}
		msg = append(msg, buf[:n]...)
	}
}

// parseAnswer checks a keeper's answer and returns its token and the rest.
func parseAnswer(msg []byte) (string, []byte, bool) {
	rest, ok := bytes.CutPrefix(msg, []byte(keepMagic))
	token, rest, ok2 := bytes.Cut(rest, []byte("\n"))
	return string(token), rest, ok && ok2
}

// takeOver takes ix's watcher from the project's keeper, with what
// changed since the last run gave it; false when there is none or it does
// not go with the loaded index, and the caller walks. ix.mu is held.
func (s *Store) takeOver(ix *index) bool {
	if s.opts.Keeper == "" || s.opts.NoWatch || !ix.loaded {
		return false
	}
	b, err := os.ReadFile(s.keepFile(ix.worktree))
	var st keepState
	if err != nil || json.Unmarshal(b, &st) != nil || st.Index != ix.file || st.Exclude != excludeID(ix.worktree) {
		return false
	}
	cfd := dial(s.keepSocket(ix.worktree))
	if cfd < 0 {
		return false
	}
	defer unix.Close(cfd)
	// A keeper answers at once; this bounds one that does not.
	unix.SetsockoptTimeval(cfd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Sec: 2})
	if _, err := sendmsg(cfd, []byte{opTake}, nil); err != nil {
		return false
	}
	buf := make([]byte, 64<<10)
	oob := make([]byte, unix.CmsgSpace(4))
	n, oobn, err := recvmsg(cfd, buf, oob)
	if err != nil || n <= 0 {
		return false
	}
	fd := rightsFd(oob[:oobn])
	if fd < 0 {
		return false
	}
	msg, ok := readAll(cfd, append([]byte(nil), buf[:n]...))
	token, rest, ok2 := parseAnswer(msg)
	gen, k := binary.Uvarint(rest)
	var size uint64
	if k > 0 {
		rest = rest[k:]
		size, k = binary.Uvarint(rest)
	}
	dirs, dirsOK := rebuildDirs(ix.worktree, st.Dirs)
	if !ok || !ok2 || k <= 0 || uint64(len(rest)-k) != size || token != st.Token || gen != st.Gen || !dirsOK {
		unix.Close(fd) // not the watch the keep file goes with
		return false
	}
	ix.watch = &watcher{fd: fd, dirs: st.Watches, backlog: rest[k:], extra: redoChanges(st.Redo)}
	ix.dirs, ix.skips, ix.walked, ix.exclude = dirs, nil, true, st.Exclude
	return true
}
