// Package fakellm plays scripted model responses, for tests and benchmarks
// that must not reach a real model: an in-process llm.Provider (Scripted)
// and an HTTP server (Server) that speaks the OpenAI Chat Completions,
// OpenAI Responses and Anthropic Messages streaming wire formats.
//
// A script is a list of steps, one per model request; a step is the events
// the model streams. Scripts can be written in a small line language (see
// Parse) so that txtar scenarios and end-to-end tests share them.
//
// It imports llm only. Tests, benchmarks and the benchmark harness import
// it; the product never does.
package fakellm

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/codeloop/codeloop/internal/llm"
)

// Control events a script may hold beside the real ones. Providers act on
// them instead of sending them.
const (
	// EventPause calls the player's pause hook and goes on when it returns.
	EventPause llm.EventType = "fakellm.pause"
	// EventHang stops sending until the request is cancelled.
	EventHang llm.EventType = "fakellm.hang"
	// EventSleep waits for Event.Text parsed as a duration.
	EventSleep llm.EventType = "fakellm.sleep"
)

// Step is the events of one model response.
type Step []llm.Event

// Text returns the events of a text block with id, its text sent in
// word-sized deltas.
func Text(id, text string) Step {
	s := Step{{Type: llm.EventTextStart, ID: id}}
	for _, d := range chunks(text) {
		s = append(s, llm.Event{Type: llm.EventTextDelta, ID: id, Text: d})
	}
	return append(s, llm.Event{Type: llm.EventTextEnd, ID: id})
}

// Reasoning returns the events of a reasoning block with an optional
// signature.
func Reasoning(id, text, signature string) Step {
	s := Step{{Type: llm.EventReasoningStart, ID: id}}
	for _, d := range chunks(text) {
		s = append(s, llm.Event{Type: llm.EventReasoningDelta, ID: id, Text: d})
	}
	return append(s, llm.Event{Type: llm.EventReasoningEnd, ID: id, Signature: signature})
}

// Call returns the events of a tool call whose arguments are input.
func Call(id, tool, input string) Step {
	return Step{
		{Type: llm.EventToolInputStart, ID: id, ToolName: tool},
		{Type: llm.EventToolInputDelta, ID: id, Text: input},
		{Type: llm.EventToolCall, ID: id, ToolName: tool, Input: input},
	}
}

// Finish returns the event that ends a step.
func Finish(reason llm.FinishReason, u llm.Usage) Step {
	return Step{{Type: llm.EventFinish, Reason: reason, Usage: u}}
}

// chunks splits text after each space, so deltas look like a model's.
func chunks(text string) []string {
	var out []string
	for len(text) > 0 {
		i := strings.IndexByte(text, ' ')
		if i < 0 {
			out = append(out, text)
			break
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	return out
}

// Parse reads a script. Each line is one instruction; blank lines and lines
// starting with # are skipped; \n in text stands for a newline.
//
//	step                                  start the next response
//	text <text>                           a text block
//	reasoning <text> [| <signature>]      a reasoning block
//	call <id> <tool> <json arguments>     a tool call
//	finish <reason> [input=N] [output=N] [reasoning=N] [cache_read=N] [cache_write=N]
//	error <kind> [status=N] [retry_after=<duration>] <message>
//	                                      kind: retryable, overflow, auth, content-filter, other
//	pause | hang | sleep <duration>       control the player
func Parse(src string) ([]Step, error) {
	var steps []Step
	blocks := 0
	for n, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		verb, rest, _ := strings.Cut(line, " ")
		rest = strings.TrimSpace(rest)
		if verb == "step" {
			steps = append(steps, Step{})
			blocks = 0
			continue
		}
		if len(steps) == 0 {
			return nil, fmt.Errorf("line %d: %q before the first step", n+1, verb)
		}
		cur := &steps[len(steps)-1]
		unescape := strings.NewReplacer(`\n`, "\n", `\t`, "\t").Replace
		switch verb {
		case "text":
			blocks++
			*cur = append(*cur, Text(fmt.Sprintf("t%d", blocks), unescape(rest))...)
		case "reasoning":
			blocks++
			text, sig, _ := strings.Cut(rest, " | ")
			*cur = append(*cur, Reasoning(fmt.Sprintf("r%d", blocks), unescape(strings.TrimSpace(text)), strings.TrimSpace(sig))...)
		case "call":
			f := strings.SplitN(rest, " ", 3)
			if len(f) < 2 {
				return nil, fmt.Errorf("line %d: call wants an id, a tool and arguments", n+1)
			}
			input := ""
			if len(f) == 3 {
				input = f[2]
			}
			*cur = append(*cur, Call(f[0], f[1], input)...)
		case "finish":
			ev, err := parseFinish(rest)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", n+1, err)
			}
			*cur = append(*cur, ev)
		case "error":
			ev, err := parseError(rest)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", n+1, err)
			}
			*cur = append(*cur, ev)
		case "pause":
			*cur = append(*cur, llm.Event{Type: EventPause})
		case "hang":
			*cur = append(*cur, llm.Event{Type: EventHang})
		case "sleep":
			if _, err := time.ParseDuration(rest); err != nil {
				return nil, fmt.Errorf("line %d: %w", n+1, err)
			}
			*cur = append(*cur, llm.Event{Type: EventSleep, Text: rest})
		default:
			return nil, fmt.Errorf("line %d: unknown instruction %q", n+1, verb)
		}
	}
	return steps, nil
}

func parseFinish(rest string) (llm.Event, error) {
	f := strings.Fields(rest)
	if len(f) == 0 {
		return llm.Event{}, fmt.Errorf("finish wants a reason")
	}
	ev := llm.Event{Type: llm.EventFinish, Reason: llm.FinishReason(f[0])}
	for _, kv := range f[1:] {
		k, v, ok := strings.Cut(kv, "=")
		n, err := strconv.ParseInt(v, 10, 64)
		if !ok || err != nil {
			return ev, fmt.Errorf("finish: bad count %q", kv)
		}
		switch k {
		case "input":
			ev.Usage.Input = n
		case "output":
			ev.Usage.Output = n
		case "reasoning":
			ev.Usage.Reasoning = n
		case "cache_read":
			ev.Usage.CacheRead = n
		case "cache_write":
			ev.Usage.CacheWrite = n
		default:
			return ev, fmt.Errorf("finish: unknown count %q", k)
		}
	}
	return ev, nil
}

func parseError(rest string) (llm.Event, error) {
	kind, rest, _ := strings.Cut(rest, " ")
	e := &llm.Error{Provider: "fake"}
	switch kind {
	case "retryable":
		e.Kind = llm.ErrRetryable
	case "overflow":
		e.Kind = llm.ErrContextOverflow
	case "auth":
		e.Kind = llm.ErrAuth
	case "content-filter":
		e.Kind = llm.ErrContentFilter
	case "other":
		e.Kind = llm.ErrOther
	default:
		return llm.Event{}, fmt.Errorf("error: unknown kind %q", kind)
	}
	for {
		word, more, _ := strings.Cut(rest, " ")
		k, v, ok := strings.Cut(word, "=")
		if !ok {
			break
		}
		switch k {
		case "status":
			n, err := strconv.Atoi(v)
			if err != nil {
				return llm.Event{}, fmt.Errorf("error: bad status %q", v)
			}
			e.StatusCode = n
		case "retry_after":
			d, err := time.ParseDuration(v)
			if err != nil {
				return llm.Event{}, fmt.Errorf("error: %w", err)
			}
			e.RetryAfter = d
		default:
			return llm.Event{}, fmt.Errorf("error: unknown field %q", k)
		}
		rest = more
	}
	e.Message = strings.TrimSpace(rest)
	return llm.Event{Type: llm.EventError, Err: e}, nil
}
