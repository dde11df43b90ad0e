//go:build linux && (amd64 || arm64)

package sandbox

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Offsets into struct seccomp_data.
const (
	dataNr   = 0
	dataArch = 4
	dataArg0 = 16 // low 32 bits on little-endian machines
	dataArg1 = 24
)

// blockedSyscalls are refused in every mode: debugging other processes,
// io_uring (which bypasses the other checks), kernel modules, kexec, BPF,
// changes to the mount table, and entering another namespace (root could
// otherwise join a mount namespace where the file system is writable).
func blockedSyscalls() []uint32 {
	return []uint32{
		unix.SYS_PTRACE, unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV, unix.SYS_PIDFD_GETFD,
		unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER,
		unix.SYS_INIT_MODULE, unix.SYS_FINIT_MODULE, unix.SYS_DELETE_MODULE,
		unix.SYS_KEXEC_LOAD, unix.SYS_KEXEC_FILE_LOAD, unix.SYS_BPF, unix.SYS_PERF_EVENT_OPEN,
		unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT, unix.SYS_OPEN_TREE, unix.SYS_MOVE_MOUNT,
		unix.SYS_FSOPEN, unix.SYS_FSCONFIG, unix.SYS_FSMOUNT, unix.SYS_FSPICK, unix.SYS_MOUNT_SETATTR,
		unix.SYS_REBOOT, unix.SYS_SWAPON, unix.SYS_SWAPOFF, unix.SYS_SETNS,
	}
}

// insn is one BPF instruction whose jumps name labels; "" jumps to the
// next instruction.
type insn struct {
	label  string // this instruction's label, if any
	code   uint16
	k      uint32
	jt, jf string
}

const (
	bpfLoad  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJeq   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfJge   = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
	bpfRet   = unix.BPF_RET | unix.BPF_K
	retAllow = unix.SECCOMP_RET_ALLOW
)

func retErrno(errno unix.Errno) uint32 {
	return unix.SECCOMP_RET_ERRNO | uint32(errno)&unix.SECCOMP_RET_DATA
}

// filter returns the seccomp program for the policy.
func filter(p Policy) ([]unix.SockFilter, error) {
	prog := []insn{
		{code: bpfLoad, k: dataArch},
		{code: bpfJeq, k: auditArch, jf: "deny"},
		{code: bpfLoad, k: dataNr},
	}
	if x32Base != 0 {
		// System calls of the x32 ABI bypass the numbers checked below.
		prog = append(prog, insn{code: bpfJge, k: x32Base, jt: "deny"})
	}
	for _, nr := range blockedSyscalls() {
		prog = append(prog, insn{code: bpfJeq, k: nr, jt: "deny"})
	}
	if !p.Network {
		prog = append(prog, insn{code: bpfJeq, k: unix.SYS_SOCKET, jt: "socket"})
	}
	prog = append(prog,
		insn{code: bpfJeq, k: unix.SYS_IOCTL, jt: "ioctl"},
		insn{code: bpfRet, k: retAllow},
		// socket(2): only Unix domain sockets.
		insn{label: "socket", code: bpfLoad, k: dataArg0},
		insn{code: bpfJeq, k: unix.AF_UNIX, jt: "allow"},
		insn{code: bpfRet, k: retErrno(unix.EACCES)},
		// ioctl(2): no typing into the controlling terminal.
		insn{label: "ioctl", code: bpfLoad, k: dataArg1},
		insn{code: bpfJeq, k: unix.TIOCSTI, jt: "deny"},
		insn{code: bpfJeq, k: unix.TIOCLINUX, jt: "deny"},
		insn{label: "allow", code: bpfRet, k: retAllow},
		insn{label: "deny", code: bpfRet, k: retErrno(unix.EPERM)},
	)
	return assemble(prog)
}

// assemble resolves the labels of prog into relative jumps.
func assemble(prog []insn) ([]unix.SockFilter, error) {
	at := map[string]int{}
	for i, in := range prog {
		if in.label != "" {
			at[in.label] = i
		}
	}
	jump := func(i int, label string) (uint8, error) {
		if label == "" {
			return 0, nil
		}
		to, ok := at[label]
		if !ok {
			return 0, fmt.Errorf("seccomp program: no label %q", label)
		}
		off := to - i - 1
		if off < 0 || off > 255 {
			return 0, fmt.Errorf("seccomp program: jump to %q out of range", label)
		}
		return uint8(off), nil
	}
	out := make([]unix.SockFilter, len(prog))
	for i, in := range prog {
		jt, err := jump(i, in.jt)
		if err != nil {
			return nil, err
		}
		jf, err := jump(i, in.jf)
		if err != nil {
			return nil, err
		}
		out[i] = unix.SockFilter{Code: in.code, Jt: jt, Jf: jf, K: in.k}
	}
	return out, nil
}

// installFilter installs the policy's filter on the calling thread, which
// must be locked to its goroutine and have no_new_privs set.
func installFilter(p Policy) error {
	prog, err := filter(p)
	if err != nil {
		return err
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, errno := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog)))
	if errno != 0 {
		return fmt.Errorf("installing the seccomp filter: %w", errno)
	}
	return nil
}
