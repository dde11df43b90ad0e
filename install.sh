#!/bin/sh
# Installs codeloop from its release archives, without sudo.
#
#   curl -fsSL https://github.com/codeloop/codeloop/releases/latest/download/install.sh | sh
#
# Environment:
#   CODELOOP_VERSION      release to install (1.2.3 or v1.2.3); the latest by default
#   CODELOOP_INSTALL_DIR  where the binary goes; ~/.local/bin by default
#   CODELOOP_RELEASE_URL  base of the releases (a mirror, or file:// for tests);
#                         https://github.com/codeloop/codeloop/releases by default
#   CODELOOP_OS, CODELOOP_ARCH  override the detected platform
#
# The script downloads the archive for this platform and the release's
# checksums.txt, refuses an archive whose SHA-256 does not match, and
# installs the codeloop binary.
set -eu

base=${CODELOOP_RELEASE_URL:-https://github.com/codeloop/codeloop/releases}
base=${base%/}
version=${CODELOOP_VERSION:-latest}
dir=${CODELOOP_INSTALL_DIR:-${HOME:?HOME is not set}/.local/bin}
supported="linux/amd64 linux/arm64 darwin/amd64 darwin/arm64"

say() { printf 'codeloop install: %s\n' "$*" >&2; }
die() {
	say "$*"
	exit 1
}

detect_os() {
	if [ -n "${CODELOOP_OS:-}" ]; then
		printf '%s\n' "$CODELOOP_OS"
		return
	fi
	case $(uname -s) in
	Linux) echo linux ;;
	Darwin) echo darwin ;;
	MINGW* | MSYS* | CYGWIN* | Windows_NT) echo windows ;;
	*) uname -s | tr '[:upper:]' '[:lower:]' ;;
	esac
}

detect_arch() {
	if [ -n "${CODELOOP_ARCH:-}" ]; then
		printf '%s\n' "$CODELOOP_ARCH"
		return
	fi
	m=$(uname -m)
	case $m in
	x86_64 | amd64)
		# An x86_64 shell on Apple silicon runs under Rosetta: prefer the
		# native binary.
		if [ "$(uname -s)" = Darwin ] && [ "$(sysctl -n hw.optional.arm64 2>/dev/null || echo 0)" = 1 ]; then
			echo arm64
		else
			echo amd64
		fi
		;;
	aarch64 | arm64) echo arm64 ;;
	*) echo "$m" ;;
	esac
}

# wget_https URL FILE downloads URL into FILE with wget, following at most
# ten redirects and only to https: wget itself would follow one to plain
# http, where the archive and checksums.txt could both be changed.
wget_https() {
	wget --help 2>&1 | grep -q -e '--max-redirect' ||
		die "this wget cannot be kept from following redirects to plain http; install curl"
	u=$1
	hops=0
	while [ "$hops" -le 10 ]; do
		case $u in
		https://*) ;;
		*)
			say "refusing $u: not https"
			return 1
			;;
		esac
		headers=$(wget -q -S --max-redirect=0 -O "$2" "$u" 2>&1) && return 0
		next=$(printf '%s\n' "$headers" | sed -n 's/^ *[Ll]ocation: *//p' | tail -n 1 | tr -d '\r')
		case $next in
		'') return 1 ;;
		/*) u=$(printf '%s\n' "$u" | sed 's|^\(https://[^/]*\).*|\1|')$next ;;
		*) u=$next ;;
		esac
		hops=$((hops + 1))
	done
	return 1
}

# fetch URL FILE downloads URL (https or file) into FILE.
fetch() {
	if command -v curl >/dev/null 2>&1; then
		curl -fsSL --proto '=https,file' -o "$2" "$1" || return 1
	elif command -v wget >/dev/null 2>&1; then
		case $1 in
		file://*) cp "${1#file://}" "$2" || return 1 ;;
		*) wget_https "$1" "$2" || return 1 ;;
		esac
	else
		case $1 in
		file://*) cp "${1#file://}" "$2" || return 1 ;;
		*) die "curl or wget is needed to download codeloop" ;;
		esac
	fi
}

# sha256 FILE prints the SHA-256 of FILE in hex.
sha256() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | cut -d ' ' -f 1
	elif command -v shasum >/dev/null 2>&1; then
		shasum -a 256 "$1" | cut -d ' ' -f 1
	elif command -v openssl >/dev/null 2>&1; then
		openssl dgst -sha256 -r "$1" | cut -d ' ' -f 1
	else
		die "sha256sum, shasum or openssl is needed to check the download"
	fi
}

os=$(detect_os)
arch=$(detect_arch)
case " $supported " in
*" $os/$arch "*) ;;
*)
	if [ "$os" = windows ]; then
		die "this script installs on Linux and macOS; on Windows use npm (npm i -g codeloop) or the zip archive from $base"
	fi
	die "no codeloop release for $os/$arch; releases exist for: $supported (and windows/amd64, windows/arm64 as zip archives)"
	;;
esac

archive="codeloop_${os}_${arch}.tar.gz"
case $version in
latest) url="$base/latest/download" ;;
v*) url="$base/download/$version" ;;
*) url="$base/download/v$version" ;;
esac

tmp=$(mktemp -d 2>/dev/null || mktemp -d -t codeloop)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

say "downloading $url/$archive"
fetch "$url/$archive" "$tmp/$archive" || die "could not download $url/$archive"
fetch "$url/checksums.txt" "$tmp/checksums.txt" || die "could not download $url/checksums.txt"

want=$(awk -v name="$archive" '$2 == name || $2 == "*" name { print $1; exit }' "$tmp/checksums.txt")
[ -n "$want" ] || die "checksums.txt has no entry for $archive"
got=$(sha256 "$tmp/$archive")
if [ "$got" != "$want" ]; then
	die "checksum mismatch for $archive: expected $want, got $got; nothing was installed"
fi

mkdir "$tmp/x"
tar -xzf "$tmp/$archive" -C "$tmp/x" || die "could not unpack $archive"
[ -f "$tmp/x/codeloop" ] || die "$archive holds no codeloop binary"

mkdir -p "$dir" || die "could not create $dir"
# Copy beside the target, then rename over it, so a running codeloop is
# never left half-written.
cp "$tmp/x/codeloop" "$dir/.codeloop.new" || die "could not write to $dir"
chmod 755 "$dir/.codeloop.new"
mv -f "$dir/.codeloop.new" "$dir/codeloop" || die "could not install $dir/codeloop"

installed=$("$dir/codeloop" --version 2>/dev/null || true)
say "installed ${installed:-codeloop} to $dir/codeloop"

case ":${PATH:-}:" in
*":$dir:"*) ;;
*)
	say "$dir is not on your PATH; add it with:"
	case ${SHELL:-} in
	*/fish) say "  fish_add_path $dir" ;;
	*/zsh) say "  echo 'export PATH=\"$dir:\$PATH\"' >> ~/.zshrc" ;;
	*) say "  echo 'export PATH=\"$dir:\$PATH\"' >> ~/.profile" ;;
	esac
	;;
esac
