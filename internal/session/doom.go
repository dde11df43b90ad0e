package session

import (
	"github.com/codeloop/codeloop/internal/message"
)

// Doom-loop guard. A model stuck in a loop repeats itself; before such a
// call runs, the user is asked (permission "doom_loop", pattern the tool
// id). Two patterns count:
//
//   - the same tool with identical input three times in a row, whatever
//     the results (OpenCode's rule), across the steps of a turn;
//   - a call whose tool, input and result already occurred twice among
//     the last doomWindow calls of the turn, which catches cycles such as
//     A,B,A,B,A that the first rule misses.
const (
	doomRepeats = 3
	doomWindow  = 12
)

// callRecord is a finished or running call, as the guard sees it.
type callRecord struct {
	tool   string
	input  string // compact JSON
	output string
	done   bool // output is known
}

// turnCalls returns the calls of the assistant messages of the current turn
// (those after the newest user message), oldest first.
func turnCalls(msgs []message.Message, lastUser string) []callRecord {
	var out []callRecord
	for i := range msgs {
		m := &msgs[i]
		if m.Info.Role != message.RoleAssistant || m.Info.ID < lastUser {
			continue
		}
		for _, p := range m.Parts {
			if tp, ok := p.(*message.ToolPart); ok {
				out = append(out, recordOf(tp))
			}
		}
	}
	return out
}

func recordOf(tp *message.ToolPart) callRecord {
	r := callRecord{tool: tp.Tool, input: string(message.ObjectInput(tp.State.Input))}
	switch tp.State.Status {
	case message.ToolCompleted:
		r.output, r.done = "ok:"+tp.State.Output, true
	case message.ToolError:
		r.output, r.done = "error:"+tp.State.Error, true
	}
	return r
}

// doomLoopLocked reports whether the call part, which is about to run,
// repeats earlier calls as described above; the caller holds w.mu.
func (p *processor) doomLoopLocked(part *message.ToolPart) bool {
	seq := append([]callRecord(nil), p.turn...)
	for _, tp := range p.order {
		if tp == part {
			break
		}
		if tp.State.Status != message.ToolPending {
			seq = append(seq, recordOf(tp))
		}
	}
	cur := callRecord{tool: part.Tool, input: string(message.ObjectInput(part.State.Input))}
	same := func(r callRecord) bool { return r.tool == cur.tool && r.input == cur.input }

	if n := len(seq); n >= doomRepeats-1 {
		repeated := true
		for _, r := range seq[n-(doomRepeats-1):] {
			repeated = repeated && same(r)
		}
		if repeated {
			return true
		}
	}
	if len(seq) > doomWindow {
		seq = seq[len(seq)-doomWindow:]
	}
	results := map[string]int{}
	for _, r := range seq {
		if r.done && same(r) {
			results[r.output]++
			if results[r.output] >= doomRepeats-1 {
				return true
			}
		}
	}
	return false
}
