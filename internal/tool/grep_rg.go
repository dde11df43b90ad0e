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
	"strings"

	"github.com/codeloop/codeloop/internal/proc"
)

// ripgrep runs q with the rg binary at rg, asking for JSON output.
func (q *grepQuery) ripgrep(ctx context.Context, rg string) ([]grepMatch, error) {
	args := []string{
		"--json", "--hidden", "--no-config", "--no-messages", "--no-ignore-global",
		"--glob=!.git",
	}
	postFilter := false
	if q.include != nil && !q.file {
		if q.include.basename {
			args = append(args, "--type-add=include:"+q.include.pattern, "--type=include")
		} else {
			postFilter = true
		}
	}
	args = append(args, "--regexp="+q.pattern, "--", q.root)
	cmd := exec.CommandContext(ctx, rg, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	// A pipe of our own rather than StdoutPipe: proc waits for the process
	// while the output is still being read.
	stdout, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("running ripgrep: %w", err)
	}
	defer stdout.Close()
	cmd.Stdout = w
	p, err := proc.Start(cmd)
	w.Close()
	if err != nil {
		return nil, fmt.Errorf("running ripgrep: %w", err)
	}
	ms, perr := parseRipgrep(stdout)
	if perr != nil {
		_, _ = io.Copy(io.Discard, stdout)
	}
	werr := p.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if perr != nil {
		return nil, fmt.Errorf("reading ripgrep's output: %w", perr)
	}
	var exit *exec.ExitError
	if werr != nil && !(errors.As(werr, &exit) && (exit.ExitCode() == 1 || (exit.ExitCode() == 2 && len(ms) > 0))) {
		return nil, fmt.Errorf("ripgrep failed: %v: %s", werr, strings.TrimSpace(stderr.String()))
	}
	if postFilter {
		kept := ms[:0]
		for _, m := range ms {
			if q.includes(m.path) {
				kept = append(kept, m)
			}
		}
		ms = kept
	}
	return ms, nil
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
