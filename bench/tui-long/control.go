package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// control is a tmux control-mode client: it sends keys without starting
// a tmux process each time, and reports what the pane's program writes
// as it writes it (%output), each chunk with the time it was read. Key to
// frame is then the time from a key written to the client to the
// program's output that draws it, without polling the screen.
type control struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out chan chunk
}

// chunk is one %output notification: the bytes the program wrote.
type chunk struct {
	at   time.Time
	data string
}

func startControl(socket, session string) (*control, error) {
	cmd := exec.Command("tmux", "-L", socket, "-C", "attach", "-t", session)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &control{cmd: cmd, in: in, out: make(chan chunk, 4096)}
	go func() {
		defer close(c.out)
		r := bufio.NewReaderSize(stdout, 1<<20)
		for {
			line, err := r.ReadString('\n')
			if rest, ok := strings.CutPrefix(line, "%output "); ok {
				if _, data, ok := strings.Cut(rest, " "); ok {
					c.out <- chunk{at: time.Now(), data: unescapeOctal(strings.TrimSuffix(data, "\n"))}
				}
			}
			if err != nil {
				return
			}
		}
	}()
	return c, nil
}

// send types text literally into the pane; it returns the time the
// command was written.
func (c *control) send(target, text string) (time.Time, error) {
	t := time.Now()
	_, err := fmt.Fprintf(c.in, "send-keys -t %s -l %s\n", target, strconv.Quote(text))
	return t, err
}

// key sends a named key (C-u, Enter).
func (c *control) key(target, key string) error {
	_, err := fmt.Fprintf(c.in, "send-keys -t %s %s\n", target, key)
	return err
}

// drain drops the output read so far.
func (c *control) drain() {
	for {
		select {
		case <-c.out:
		default:
			return
		}
	}
}

// waitOutput returns the time of the first output chunk that has s,
// waiting at most d.
func (c *control) waitOutput(s string, d time.Duration) (time.Time, error) {
	deadline := time.After(d)
	for {
		select {
		case ch, ok := <-c.out:
			if !ok {
				return time.Time{}, errors.New("the control client ended")
			}
			if strings.Contains(ch.data, s) {
				return ch.at, nil
			}
		case <-deadline:
			return time.Time{}, fmt.Errorf("no output with %q in %v", s, d)
		}
	}
}

func (c *control) close() {
	_ = c.in.Close()
	_ = c.cmd.Wait()
}

// unescapeOctal undoes control mode's escaping of bytes as \ooo.
func unescapeOctal(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
