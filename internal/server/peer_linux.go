package server

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// localPeer reports whether the TCP connection from remote to the
// server's address local comes from another user of this machine: the
// kernel lists the connecting socket in /proc/net/tcp (or tcp6), with
// the user who owns it. A loopback connection whose socket is not listed
// is refused too; a connection from another machine is not listed and
// is left to the token. Where /proc cannot be read nothing is refused.
func localPeer(local, remote *net.TCPAddr) (foreign bool, reason string) {
	uid := os.Getuid()
	found, read := false, false
	for _, name := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		read = true
		owner, ok := socketOwner(f, remote, local)
		f.Close()
		if ok {
			found = true
			if owner != uid {
				return true, fmt.Sprintf("the connection comes from another user of this machine (uid %d)", owner)
			}
		}
	}
	if !found && read && remote.IP.IsLoopback() {
		return true, "the connection's socket could not be found, so its user cannot be checked"
	}
	return false, ""
}

// socketOwner finds in a /proc/net/tcp listing the socket whose own
// address is addr and whose peer is peer, and returns the uid owning it.
func socketOwner(r io.Reader, addr, peer *net.TCPAddr) (uid int, found bool) {
	lines := bufio.NewScanner(r)
	lines.Buffer(make([]byte, 0, 4096), 1<<20)
	for lines.Scan() {
		f := strings.Fields(lines.Text())
		if len(f) < 8 || f[0] == "sl" {
			continue
		}
		if !sameAddr(f[1], addr) || !sameAddr(f[2], peer) {
			continue
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			continue
		}
		return n, true
	}
	return 0, false
}

// sameAddr reports whether s, an address as /proc/net/tcp prints it
// ("0100007F:1F90": the address as 32-bit words in the machine's byte
// order, then the port, in hexadecimal), is a.
func sameAddr(s string, a *net.TCPAddr) bool {
	h, p, ok := strings.Cut(s, ":")
	if !ok {
		return false
	}
	port, err := strconv.ParseUint(p, 16, 16)
	if err != nil || int(port) != a.Port {
		return false
	}
	raw, err := hex.DecodeString(h)
	if err != nil || (len(raw) != net.IPv4len && len(raw) != net.IPv6len) {
		return false
	}
	ip := make(net.IP, len(raw))
	for i := 0; i < len(raw); i += 4 {
		binary.NativeEndian.PutUint32(ip[i:], binary.BigEndian.Uint32(raw[i:]))
	}
	return ip.Equal(a.IP)
}

// confinedPeer reports whether the process at the other end of c runs
// with restrictions the server lacks, as every command codeloop's sandbox
// confines does: with no_new_privs set (which no process can clear) where
// the server runs without, else, where the server has it too, in another
// mount or user namespace. Such a process can read the server's state
// file, so the token alone would let it run commands outside its
// confinement through the server. A peer that cannot be looked at is
// refused too.
func confinedPeer(c *net.UnixConn) (foreign bool, reason string) {
	raw, err := c.SyscallConn()
	if err != nil {
		return true, "the connection's process cannot be checked: " + err.Error()
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil || credErr != nil {
		return true, fmt.Sprintf("the connection's process cannot be checked: %v", errors.Join(err, credErr))
	}
	if cred.Pid <= 0 {
		return true, "the connection's process cannot be checked"
	}
	peer := "/proc/" + strconv.Itoa(int(cred.Pid))
	own, err := noNewPrivs("/proc/self/status")
	if err != nil {
		return false, "" // no /proc to look at
	}
	theirs, err := noNewPrivs(peer + "/status")
	if err != nil {
		return true, "the connection's process cannot be checked: " + err.Error()
	}
	if !own {
		if theirs {
			return true, "the connection comes from a process running with no_new_privs, as codeloop's sandbox confines commands"
		}
		return false, ""
	}
	for _, ns := range []string{"mnt", "user"} {
		mine, err := os.Readlink("/proc/self/ns/" + ns)
		if err != nil {
			continue // no namespaces to compare
		}
		other, err := os.Readlink(peer + "/ns/" + ns)
		if err != nil {
			return true, "the connection's process cannot be checked: " + err.Error()
		}
		if other != mine {
			return true, "the connection comes from a process in another " + ns + " namespace, as codeloop's sandbox confines commands"
		}
	}
	return false, ""
}

// noNewPrivs reads the NoNewPrivs flag from a /proc/PID/status file.
func noNewPrivs(status string) (bool, error) {
	data, err := os.ReadFile(status)
	if err != nil {
		return false, err
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "NoNewPrivs:"); ok {
			return strings.TrimSpace(v) == "1", nil
		}
	}
	return false, errors.New("no NoNewPrivs line in " + status)
}
