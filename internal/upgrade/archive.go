package upgrade

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
)

// maxBinary bounds the size of the binary inside an archive.
const maxBinary = 512 << 20

// Verify checks data, the release file name, against the release's
// checksums.txt (lines of a SHA-256 in hex, two spaces and a name).
func Verify(checksums []byte, name string, data []byte) error {
	want := ""
	sc := bufio.NewScanner(bytes.NewReader(checksums))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 2 && strings.TrimPrefix(fields[1], "*") == name {
			want = strings.ToLower(fields[0])
			break
		}
	}
	if want == "" {
		return fmt.Errorf("checksums.txt has no entry for %s", name)
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != want {
		return fmt.Errorf("%w for %s: checksums.txt says %s, the download is %s", ErrChecksum, name, want, got)
	}
	return nil
}

// Extract returns the codeloop binary (codeloop.exe for windows) from the
// archive named name: a .tar.gz or a .zip.
func Extract(name string, data []byte, goos string) ([]byte, error) {
	bin := "codeloop"
	if goos == "windows" {
		bin += ".exe"
	}
	var (
		out []byte
		err error
	)
	switch {
	case strings.HasSuffix(name, ".tar.gz"):
		out, err = fromTarGz(data, bin)
	case strings.HasSuffix(name, ".zip"):
		out, err = fromZip(data, bin)
	default:
		return nil, fmt.Errorf("archive %s: not a .tar.gz or .zip", name)
	}
	if err != nil {
		return nil, fmt.Errorf("archive %s: %w", name, err)
	}
	return out, nil
}

var errNoBinary = errors.New("no codeloop binary inside")

func fromTarGz(data []byte, bin string) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil, errNoBinary
		}
		if err != nil {
			return nil, err
		}
		if h.Typeflag == tar.TypeReg && path.Clean(h.Name) == bin {
			return readBounded(tr)
		}
	}
}

func fromZip(data []byte, bin string) ([]byte, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, err
	}
	for _, f := range zr.File {
		if path.Clean(f.Name) != bin || !f.Mode().IsRegular() {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		return readBounded(rc)
	}
	return nil, errNoBinary
}

func readBounded(r io.Reader) ([]byte, error) {
	out, err := io.ReadAll(io.LimitReader(r, maxBinary+1))
	if err != nil {
		return nil, err
	}
	if len(out) > maxBinary {
		return nil, fmt.Errorf("the binary is larger than %d bytes", maxBinary)
	}
	return out, nil
}
