// Package permission decides whether a tool may do what it asks: ordered
// rulesets with wildcard patterns, and the requests, replies and errors
// of the ask flow. The flow itself is internal/approval's, the analysis of
// shell commands internal/shellscan's.
//
// It imports nothing of codeloop's; tools, agents and the session loop
// import it.
package permission

import (
	"context"
	"fmt"
)

// Action is what a rule decides.
type Action string

// The actions a rule may take.
const (
	Allow Action = "allow"
	Ask   Action = "ask"
	Deny  Action = "deny"
)

// Rule decides Action for requests whose permission name matches the
// Permission glob and whose value matches the Pattern glob.
type Rule struct {
	Permission string `json:"permission"`
	Pattern    string `json:"pattern"`
	Action     Action `json:"action"`
	// Floor marks a rule of a project the user has not trusted: such
	// rules are evaluated apart from the others and can only make the
	// answer stricter (see Evaluate).
	Floor bool `json:"floor,omitempty"`
	// Layer names the source of a floor rule ("" for the project's,
	// "session" for the rules a client sent with a session). Floor rules
	// of different layers are evaluated apart, each able only to tighten
	// the answer.
	Layer string `json:"layer,omitempty"`
	// Default marks a rule of Defaults, the rules every agent starts from
	// before the user's.
	Default bool `json:"default,omitempty"`
}

// Ruleset is an ordered list of rules; the last matching rule wins.
type Ruleset []Rule

// ToolRef ties a request to the tool call that made it.
type ToolRef struct {
	MessageID string `json:"messageID"`
	CallID    string `json:"callID"`
}

// Request asks for permission to act on Patterns under the permission name
// Permission. Always lists the patterns an "always" reply approves.
type Request struct {
	ID         string         `json:"id"`
	SessionID  string         `json:"sessionID"`
	Permission string         `json:"permission"`
	Patterns   []string       `json:"patterns"`
	Metadata   map[string]any `json:"metadata"`
	Always     []string       `json:"always"`
	Tool       *ToolRef       `json:"tool,omitempty"`
	// Unanalysable marks a request whose real target could not be known
	// (a shell command with a dynamic program name, say): it matches every
	// deny rule of its permission and is never approved automatically.
	Unanalysable bool `json:"unanalysable,omitempty"`
	// Reason says, for an Unanalysable request, what could not be known.
	Reason string `json:"reason,omitempty"`
	// Aliases give, for patterns whose program is a link to or a copy of
	// another program, the pattern under that program's name: a deny or
	// ask rule about that program holds for the pattern too, unless the
	// same rule also matches the pattern as called.
	Aliases []Alias `json:"aliases,omitempty"`
	// Inline are the commands of the request that run code given to a
	// general interpreter (python -c, perl -e, node -e), which cannot be
	// checked: each is asked about, and never approved automatically,
	// unless an allow rule whose pattern names the interpreter
	// ("python3 *", "python3 -c *") decides it. Deny rules apply as to
	// any pattern.
	Inline []Inline `json:"inline,omitempty"`
	// Confined marks a command that will run inside the OS sandbox with
	// auto-approval on: what the rules would ask about is allowed without
	// asking. Deny rules still refuse it.
	Confined bool `json:"confined,omitempty"`
	// Confirm asks the user even where the rules or saved approvals allow
	// the request (a command to run outside the sandbox, or unconfined
	// because the sandbox is unavailable). Deny rules still refuse it.
	Confirm bool `json:"confirm,omitempty"`
	// Protected marks a request about something only the user may approve
	// (a secret file's content, codeloop's or git's own files): it is
	// asked every time, even where the rules, saved approvals, automatic
	// approval or the sandbox would let it through, and a reply of
	// "always" approves this request only. With no one to ask it is
	// rejected; Reason says what is protected. Deny rules still refuse it.
	Protected bool `json:"protected,omitempty"`
}

// Alias says that the command whose pattern is Pattern runs a program also
// known by another name: As is the same command under that name.
type Alias struct {
	Pattern string `json:"pattern"`
	As      string `json:"as"`
}

// Inline is a command that runs code given on its command line or in its
// input, in the language of the interpreter Program.
type Inline struct {
	Pattern string `json:"pattern"`
	Program string `json:"program"`
	// Reason says how the code is given, in words for the model.
	Reason string `json:"reason"`
}

// Asker checks a request against the rules in force and, where they say ask,
// waits for the user's reply. It returns nil when the request may proceed,
// a *DeniedError, *RejectedError or *CorrectedError otherwise.
type Asker interface {
	Ask(ctx context.Context, req Request) error
}

// DeniedError reports a request refused by a rule of the configuration.
type DeniedError struct {
	Permission string
	Pattern    string
	Rule       Rule
	// Reason, when set, says why the request matched the rule (a command
	// that could not be analysed matches every deny rule).
	Reason string
	// Unanalysable marks a request refused because what it would do
	// could not be analysed (Reason says why), not because Rule names it:
	// such a request is refused whenever a deny rule exists.
	Unanalysable bool
}

func (e *DeniedError) Error() string {
	if e.Unanalysable {
		return fmt.Sprintf("permission %q is denied for this command because the command cannot be analysed: %s. "+
			"A command that cannot be analysed is refused whenever the configuration has a deny rule for %q, "+
			"whichever commands that rule names; rewrite the command without what is named above, "+
			"so that every program it runs is written out in the text", e.Permission, e.Reason, e.Permission)
	}
	msg := fmt.Sprintf("permission %q for %q is denied by the rule {permission: %q, pattern: %q, action: deny}",
		e.Permission, e.Pattern, e.Rule.Permission, e.Rule.Pattern)
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg
}

// RejectedError reports a request the user rejected without a message, or
// one rejected because no one could be asked (Reason says why).
type RejectedError struct {
	Permission string
	Reason     string
}

func (e *RejectedError) Error() string {
	if e.Reason != "" {
		return fmt.Sprintf("permission %q for this call was rejected: %s", e.Permission, e.Reason)
	}
	return fmt.Sprintf("the user rejected permission %q for this call", e.Permission)
}

// CorrectedError reports a request the user rejected with a message for the
// model.
type CorrectedError struct {
	Permission string
	Message    string
}

func (e *CorrectedError) Error() string {
	return fmt.Sprintf("the user rejected permission %q with this feedback: %s", e.Permission, e.Message)
}
