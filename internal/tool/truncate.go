package tool

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/codeloop/codeloop/internal/id"
)

// Default output limits (configuration key tool_output).
const (
	DefaultMaxLines = 2000
	DefaultMaxBytes = 50 * 1024
)

// OutputRetention is how long saved full outputs are kept.
const OutputRetention = 7 * 24 * time.Hour

// Limits bound the part of a tool output that stays in the conversation.
// Zero fields take the defaults.
type Limits struct {
	MaxLines int `json:"max_lines,omitempty"`
	MaxBytes int `json:"max_bytes,omitempty"`
}

func (l Limits) withDefaults() Limits {
	if l.MaxLines <= 0 {
		l.MaxLines = DefaultMaxLines
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	return l
}

// Truncator cuts tool outputs to Limits and saves the full text of each cut
// output under Dir (normally <data>/tool-output) as tool_<id>.
type Truncator struct {
	Dir    string
	Limits Limits
}

// Apply truncates res.Output in place unless the tool already decided
// (metadata "truncated" set). canDelegate chooses the hint that suggests the
// task tool; tail keeps the end of the output instead of its start.
func (t *Truncator) Apply(res *Result, canDelegate, tail bool) {
	if _, done := res.Metadata["truncated"]; done {
		return
	}
	out, path := t.Output(res.Output, canDelegate, tail)
	if res.Metadata == nil {
		res.Metadata = map[string]any{}
	}
	res.Metadata["truncated"] = path != ""
	if path != "" {
		res.Metadata["outputPath"] = path
		res.Output = out
	}
}

// Output returns text unchanged, with an empty path, when it is within the
// limits. Otherwise it saves text to a new file and returns the kept part
// with a note on how much was cut and how to read the rest, and the file's
// path.
func (t *Truncator) Output(text string, canDelegate, tail bool) (string, string) {
	l := t.Limits.withDefaults()
	lines := strings.Count(text, "\n") + 1
	if lines <= l.MaxLines && len(text) <= l.MaxBytes {
		return text, ""
	}
	kept, keptLines, hitBytes := cut(text, l, tail)
	removed, unit := lines-keptLines, "lines"
	if hitBytes {
		removed, unit = len(text)-len(kept), "bytes"
	}
	path, err := t.save(text)
	return t.compose(kept, removed, unit, path, err, canDelegate, tail), path
}

// compose lays out a truncated output: the kept part, a marker of what was
// removed and the hint.
func (t *Truncator) compose(kept string, removed int, unit, path string, saveErr error, canDelegate, tail bool) string {
	marker := fmt.Sprintf("...%d %s truncated...", removed, unit)
	h := hint(path, saveErr, canDelegate)
	if tail {
		return marker + "\n\n" + h + "\n\n" + kept
	}
	return kept + "\n\n" + marker + "\n\n" + h
}

func hint(path string, saveErr error, canDelegate bool) string {
	if saveErr != nil {
		return fmt.Sprintf("The output was too long and was cut; the full text could not be saved (%v).", saveErr)
	}
	if canDelegate {
		return "The output was too long and was cut. The full output is saved in " + path + ".\n" +
			"Have the explore agent (task tool) search that file with grep and read the parts you need with offset/limit; " +
			"do not read the whole file yourself, it would fill your context."
	}
	return "The output was too long and was cut. The full output is saved in " + path + ".\n" +
		"Search it with grep, or read the parts you need with read and offset/limit."
}

// cut keeps whole lines from the start (or the end, for tail) of text while
// both limits hold. hitBytes reports that the byte limit stopped it.
func cut(text string, l Limits, tail bool) (kept string, keptLines int, hitBytes bool) {
	lines := strings.Split(text, "\n")
	size := 0
	if !tail {
		i := 0
		for ; i < len(lines) && i < l.MaxLines; i++ {
			n := len(lines[i])
			if i > 0 {
				n++
			}
			if size+n > l.MaxBytes {
				hitBytes = true
				break
			}
			size += n
		}
		if i == 0 && hitBytes {
			// One line longer than the whole budget: keep its start.
			return firstBytes(lines[0], l.MaxBytes), 0, true
		}
		return strings.Join(lines[:i], "\n"), i, hitBytes
	}
	i := len(lines)
	for i > 0 && len(lines)-i < l.MaxLines {
		n := len(lines[i-1])
		if i < len(lines) {
			n++
		}
		if size+n > l.MaxBytes {
			hitBytes = true
			break
		}
		size += n
		i--
	}
	if i == len(lines) && hitBytes {
		return lastChars(lines[len(lines)-1], l.MaxBytes), 0, true
	}
	return strings.Join(lines[i:], "\n"), len(lines) - i, hitBytes
}

// firstBytes is the start of s, at most n bytes, cut at a character
// boundary.
func firstBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// create makes a new empty output file and returns it with its path.
func (t *Truncator) create() (*os.File, string, error) {
	if err := os.MkdirAll(t.Dir, 0o755); err != nil {
		return nil, "", fmt.Errorf("creating the tool output directory: %w", err)
	}
	path := filepath.Join(t.Dir, id.Ascending(id.ToolOutput))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, "", fmt.Errorf("creating the tool output file: %w", err)
	}
	return f, path, nil
}

func (t *Truncator) save(text string) (string, error) {
	f, path, err := t.create()
	if err != nil {
		return "", err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return "", fmt.Errorf("saving the tool output: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("saving the tool output: %w", err)
	}
	return path, nil
}

// Sweep removes the saved outputs (files named tool_*) in dir last modified
// before now-maxAge and reports how many it removed. A missing dir is not
// an error.
func Sweep(dir string, maxAge time.Duration, now time.Time) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return 0, nil
		}
		return 0, fmt.Errorf("listing tool outputs: %w", err)
	}
	cutoff := now.Add(-maxAge)
	removed := 0
	var firstErr error
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasPrefix(e.Name(), string(id.ToolOutput)+"_") {
			continue
		}
		info, err := e.Info()
		if err != nil || !info.ModTime().Before(cutoff) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !os.IsNotExist(err) {
			if firstErr == nil {
				firstErr = fmt.Errorf("removing an old tool output: %w", err)
			}
			continue
		}
		removed++
	}
	return removed, firstErr
}

// CleanupInterval is how often Cleanup sweeps.
const CleanupInterval = time.Hour

// Cleanup sweeps dir when it starts and then every CleanupInterval,
// removing outputs older than maxAge, until ctx is done. The caller runs it
// on a goroutine it owns and stops it by cancelling ctx.
func Cleanup(ctx context.Context, dir string, maxAge time.Duration) {
	timer := time.NewTimer(CleanupInterval)
	defer timer.Stop()
	for {
		_, _ = Sweep(dir, maxAge, time.Now()) // best effort; retried next round
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		timer.Reset(CleanupInterval)
	}
}
