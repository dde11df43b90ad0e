package sandbox

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// SandboxExec is macOS's program that runs a command under a Seatbelt
// profile.
const SandboxExec = "/usr/bin/sandbox-exec"

// seatbeltDevices returns the device files commands may write in every
// mode, as on Linux, plus the one macOS's tools open for tracing.
func seatbeltDevices() []string {
	return []string{"/dev/null", "/dev/zero", "/dev/tty", "/dev/random", "/dev/urandom", "/dev/dtracehelper"}
}

// SeatbeltProfile returns the Seatbelt profile (SBPL) that confines a
// command as p says, for sandbox-exec -p on macOS. It mirrors the Linux
// sandbox: everything may be read and run, writes are allowed only beneath
// the writable roots (the temporary directory, the project in
// workspace-write mode and p.Writable), protected paths inside the
// project stay read-only, and with the network off only Unix sockets can
// be used. Paths should have their symbolic links resolved; macOS's
// /tmp, /var and /etc also get their /private names. The profile depends
// only on p, so it can be generated and checked on any system.
func SeatbeltProfile(p Policy) (string, error) {
	if p.Mode == ModeOff {
		return "", fmt.Errorf("sandbox mode %s needs no profile", p.Mode)
	}
	if err := p.Check(); err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("(version 1)\n")
	fmt.Fprintf(&b, "; codeloop: %s\n", p.String())
	b.WriteString("; Everything not denied below is allowed: reading, running programs, IPC.\n")
	b.WriteString("(allow default)\n\n")

	b.WriteString("; Writes only beneath the writable roots (later rules win).\n")
	b.WriteString("(deny file-write*)\n")
	b.WriteString("(allow file-write*\n")
	// The read-only protected paths; a git directory itself stays
	// writable (objects, refs, the index), its config and hooks do not.
	var protected []string
	for _, e := range p.protection() {
		if e.readOnly {
			protected = append(protected, e.path)
		}
	}
	for _, root := range p.writable() {
		for _, r := range seatbeltNames(root) {
			var inside []string
			for _, prot := range protected {
				if within(prot, root) {
					inside = append(inside, seatbeltNames(prot)...)
				}
			}
			if len(inside) == 0 {
				fmt.Fprintf(&b, "  (subpath %s)\n", sbString(r))
				continue
			}
			fmt.Fprintf(&b, "  (require-all (subpath %s)", sbString(r))
			for _, pn := range inside {
				fmt.Fprintf(&b, "\n    (require-not (subpath %s))", sbString(pn))
			}
			b.WriteString(")\n")
		}
	}
	for _, d := range seatbeltDevices() {
		fmt.Fprintf(&b, "  (literal %s)\n", sbString(d))
	}
	b.WriteString("  (regex #\"^/dev/fd/[0-9]+$\")\n")
	b.WriteString("  (regex #\"^/dev/ttys[0-9]+$\"))\n")

	if len(protected) > 0 {
		b.WriteString("\n; Protected paths stay read-only, even through a writable root.\n")
		b.WriteString("(deny file-write*")
		for _, prot := range protected {
			for _, pn := range seatbeltNames(prot) {
				fmt.Fprintf(&b, "\n  (subpath %s)", sbString(pn))
			}
		}
		b.WriteString(")\n")
	}

	if !p.Network {
		b.WriteString("\n; The network is off: only Unix sockets.\n")
		b.WriteString("(deny network*)\n")
		b.WriteString("(allow network* (remote unix-socket))\n")
		b.WriteString("(allow network* (local unix-socket))\n")
	}
	return b.String(), nil
}

// seatbeltNames returns path and, for paths under macOS's /tmp, /var and
// /etc (symbolic links into /private), the /private name too.
func seatbeltNames(path string) []string {
	path = filepath.Clean(path)
	out := []string{path}
	for _, top := range []string{"/tmp", "/var", "/etc"} {
		if path == top || strings.HasPrefix(path, top+"/") {
			out = append(out, "/private"+path)
		}
	}
	return slices.Compact(out)
}

// within reports whether path is dir or beneath it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// sbString quotes s as an SBPL string literal.
func sbString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}
