package tool

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/codeloop/codeloop/internal/proc"
)

// ripgrep runs q with the rg binary at rg, asking for JSON output. The
// lines of secret files are dropped, and the secret files counted by a
// listing of their own (see ripgrepSecrets).
func (q *grepQuery) ripgrep(ctx context.Context, rg string) ([]grepMatch, int, error) {
	args := []string{"--hidden", "--no-config", "--no-messages", "--no-ignore-global", "--glob=!.git"}
	postFilter := false
	if q.include != nil && !q.file {
		if q.include.basename {
			args = append(args, "--type-add=include:"+q.include.pattern, "--type=include")
		} else {
			postFilter = true
		}
	}
	var ms []grepMatch
	werr, stderr, err := runRipgrep(ctx, rg, append(slices.Clone(args), "--json", "--regexp="+q.pattern, "--", q.root),
		func(r io.Reader) (perr error) {
			ms, perr = parseRipgrep(r)
			return perr
		})
	if err != nil {
		return nil, 0, err
	}
	var exit *exec.ExitError
	if werr != nil && !(errors.As(werr, &exit) && (exit.ExitCode() == 1 || (exit.ExitCode() == 2 && len(ms) > 0))) {
		return nil, 0, fmt.Errorf("ripgrep failed: %v: %s", werr, stderr)
	}
	kept := ms[:0]
	for _, m := range ms {
		if (!postFilter || q.includes(m.path)) && !q.isSecret(m.path) {
			kept = append(kept, m)
		}
	}
	skipped, err := q.ripgrepSecrets(ctx, rg, args)
	if err != nil {
		return nil, 0, err
	}
	return kept, skipped, nil
}

// ripgrepSecrets counts the secret files among those ripgrep searches with
// args: it lists the files whose names match the last part of a secret
// pattern (every file when a pattern ends in **) and checks each.
func (q *grepQuery) ripgrepSecrets(ctx context.Context, rg string, args []string) (int, error) {
	if q.secrets == nil || q.file {
		return 0, nil
	}
	list := []string{"--files"}
	if globs, ok := q.secrets.nameGlobs(); ok {
		if len(globs) == 0 {
			return 0, nil
		}
		for _, g := range globs {
			list = append(list, "--glob="+g)
		}
	}
	list = append(list, args...)
	list = append(list, "--", q.root)
	n := 0
	werr, stderr, err := runRipgrep(ctx, rg, list, func(r io.Reader) error {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		for sc.Scan() {
			if p := sc.Text(); p != "" && q.includes(p) && q.isSecret(p) {
				n++
			}
		}
		return sc.Err()
	})
	if err != nil {
		return 0, err
	}
	var exit *exec.ExitError
	if werr != nil && !(errors.As(werr, &exit) && (exit.ExitCode() == 1 || (exit.ExitCode() == 2 && n > 0))) {
		return 0, fmt.Errorf("ripgrep failed listing secret files: %v: %s", werr, stderr)
	}
	return n, nil
}

// runRipgrep runs rg with args, handing its standard output to parse, and
// returns how rg exited and what it wrote to standard error. err is set
// when rg could not run, parse failed, or ctx ended.
func runRipgrep(ctx context.Context, rg string, args []string, parse func(io.Reader) error) (werr error, stderrText string, err error) {
	cmd := exec.CommandContext(ctx, rg, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	// A pipe of our own rather than StdoutPipe: proc waits for the process
	// while the output is still being read.
	stdout, w, err := os.Pipe()
	if err != nil {
		return nil, "", fmt.Errorf("running ripgrep: %w", err)
	}
	defer stdout.Close()
	cmd.Stdout = w
	p, err := proc.Start(cmd)
	w.Close()
	if err != nil {
		return nil, "", fmt.Errorf("running ripgrep: %w", err)
	}
	perr := parse(stdout)
	if perr != nil {
		_, _ = io.Copy(io.Discard, stdout)
	}
	werr = p.Wait()
	if ctx.Err() != nil {
		return nil, "", ctx.Err()
	}
	if perr != nil {
		return nil, "", fmt.Errorf("reading ripgrep's output: %w", perr)
	}
	return werr, strings.TrimSpace(stderr.String()), nil
}

// rgText is ripgrep's way of carrying text that may not be UTF-8.
type rgText struct {
	Text  *string `json:"text"`
	Bytes string  `json:"bytes"`
}

func (t rgText) String() string {
	if t.Text != nil {
		return *t.Text
	}
	b, _ := base64.StdEncoding.DecodeString(t.Bytes)
	return string(b)
}

type rgMessage struct {
	Type string `json:"type"`
	Data struct {
		Path       rgText `json:"path"`
		Lines      rgText `json:"lines"`
		LineNumber int    `json:"line_number"`
	} `json:"data"`
}

func parseRipgrep(r io.Reader) ([]grepMatch, error) {
	br := bufio.NewReaderSize(r, 256*1024)
	var ms []grepMatch
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var m rgMessage
			if jerr := json.Unmarshal(line, &m); jerr != nil {
				return ms, jerr
			}
			if m.Type == "match" {
				text := m.Data.Lines.String()
				text = strings.TrimSuffix(strings.TrimSuffix(text, "\n"), "\r")
				ms = append(ms, grepMatch{path: m.Data.Path.String(), line: m.Data.LineNumber, text: text})
			}
		}
		if err == io.EOF {
			return ms, nil
		}
		if err != nil {
			return ms, err
		}
	}
}
