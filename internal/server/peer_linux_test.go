package server

import (
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
)

// procAddr writes a as /proc/net/tcp does.
func procAddr(a *net.TCPAddr) string {
	ip := a.IP.To4()
	if ip == nil {
		ip = a.IP.To16()
	}
	var b strings.Builder
	for i := 0; i < len(ip); i += 4 {
		fmt.Fprintf(&b, "%08X", binary.NativeEndian.Uint32(ip[i:]))
	}
	return fmt.Sprintf("%s:%04X", b.String(), a.Port)
}

func TestSocketOwner(t *testing.T) {
	client := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 51000}
	server := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4096}
	other := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 51001}
	v6client := &net.TCPAddr{IP: net.IPv6loopback, Port: 51002}
	v6server := &net.TCPAddr{IP: net.IPv6loopback, Port: 4096}
	row := func(sl int, local, remote *net.TCPAddr, uid int) string {
		return fmt.Sprintf("  %d: %s %s 01 00000000:00000000 00:00000000 00000000 %5d        0 1234 1 0000000000000000 20 4 30 10 -1\n",
			sl, procAddr(local), procAddr(remote), uid)
	}
	header := "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
	listing := header + row(0, server, client, 1000) + row(1, other, server, 1001) + row(2, client, server, 1002) + row(3, v6client, v6server, 1003)
	tests := []struct {
		name       string
		addr, peer *net.TCPAddr
		uid        int
		found      bool
	}{
		{"the client's end", client, server, 1002, true},
		{"the server's end", server, client, 1000, true},
		{"another connection", other, server, 1001, true},
		{"IPv6", v6client, v6server, 1003, true},
		{"no such socket", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}, server, 0, false},
		{"another peer", client, other, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			uid, found := socketOwner(strings.NewReader(listing), tc.addr, tc.peer)
			if uid != tc.uid || found != tc.found {
				t.Errorf("socketOwner = %d, %v; want %d, %v", uid, found, tc.uid, tc.found)
			}
		})
	}
}

// TestLocalPeerOwnUser: a real loopback connection of the test's own
// user is found in /proc and accepted.
func TestLocalPeerOwnUser(t *testing.T) {
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("no /proc/net/tcp")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	uid, found := socketOwner(f, s.RemoteAddr().(*net.TCPAddr), s.LocalAddr().(*net.TCPAddr))
	if !found || uid != os.Getuid() {
		t.Errorf("socketOwner = %d, %v; want %d, true", uid, found, os.Getuid())
	}
	if foreign, reason := localPeer(s.LocalAddr().(*net.TCPAddr), s.RemoteAddr().(*net.TCPAddr)); foreign {
		t.Errorf("the test's own connection is refused: %s", reason)
	}
}
