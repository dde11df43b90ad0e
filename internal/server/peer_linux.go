package server

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
)

// localPeer reports whether the TCP connection from remote to the
// server's address local comes from another user of this machine: the
// kernel lists the connecting socket in /proc/net/tcp (or tcp6), with
// the user who owns it. A loopback connection whose socket is not listed
// is refused too; a connection from another machine is not listed and
// is left to the token. Where /proc cannot be read nothing is refused.
func localPeer(local, remote *net.TCPAddr) (foreign bool, reason string) {
	uid := os.Getuid()
	found := false
	for _, name := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		owner, ok := socketOwner(f, remote, local)
		f.Close()
		if ok {
			found = true
			if owner != uid {
				return true, fmt.Sprintf("the connection comes from another user of this machine (uid %d)", owner)
			}
		}
	}
	if !found && remote.IP.IsLoopback() {
		if _, err := os.Stat("/proc/net/tcp"); err == nil {
			return true, "the connection's socket could not be found, so its user cannot be checked"
		}
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
