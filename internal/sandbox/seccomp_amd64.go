//go:build linux

package sandbox

import "golang.org/x/sys/unix"

const (
	auditArch = unix.AUDIT_ARCH_X86_64
	// x32Base is where the x32 ABI's system call numbers start.
	x32Base = 0x40000000
)
