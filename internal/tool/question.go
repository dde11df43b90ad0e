package tool

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/id"
	"github.com/codeloop/codeloop/internal/permission"
)

// QuestionOption is one answer offered to the user.
type QuestionOption struct {
	Label       string `json:"label" jsonschema:"Display text (1-5 words, concise)"`
	Description string `json:"description" jsonschema:"Explanation of choice"`
}

// QuestionInfo is one question for the user.
type QuestionInfo struct {
	Question string           `json:"question" jsonschema:"Complete question"`
	Header   string           `json:"header" jsonschema:"Very short label (max 30 chars)"`
	Options  []QuestionOption `json:"options" jsonschema:"Available choices"`
	Multiple bool             `json:"multiple,omitempty" jsonschema:"Allow selecting multiple choices"`
}

// QuestionRequest is the properties of a question.asked event: questions
// waiting for the user.
type QuestionRequest struct {
	ID        string              `json:"id"`
	SessionID string              `json:"sessionID"`
	Questions []QuestionInfo      `json:"questions"`
	Tool      *permission.ToolRef `json:"tool,omitempty"`
}

// QuestionReply is the properties of a question.replied event: one list of
// chosen labels (or free text) per question, in order.
type QuestionReply struct {
	RequestID string     `json:"requestID"`
	SessionID string     `json:"sessionID"`
	Answers   [][]string `json:"answers"`
}

// QuestionRejection is the properties of a question.rejected event.
type QuestionRejection struct {
	RequestID string `json:"requestID"`
	SessionID string `json:"sessionID"`
}

// QuestionRejectedError reports questions the user dismissed; the loop
// stops, as for a rejected permission.
type QuestionRejectedError struct{}

func (*QuestionRejectedError) Error() string {
	return "the user dismissed this question"
}

// Questions puts questions to the user over the bus: Ask publishes
// question.asked and waits for the question.replied or question.rejected
// event that answers it, which anyone holding the bus may publish (Reply
// and Reject do).
type Questions struct {
	bus *bus.Bus

	mu      sync.Mutex
	pending map[string]QuestionRequest
}

// NewQuestions returns a broker on b.
func NewQuestions(b *bus.Bus) *Questions {
	return &Questions{bus: b, pending: map[string]QuestionRequest{}}
}

// Ask publishes req (given a fresh id) and blocks until it is answered,
// rejected (*QuestionRejectedError) or ctx ends.
func (q *Questions) Ask(ctx context.Context, req QuestionRequest) ([][]string, error) {
	req.ID = id.Ascending(id.Question)
	sub := q.bus.Subscribe(bus.Filter{Types: []string{bus.QuestionReplied, bus.QuestionRejected}}, 16)
	defer sub.Close()
	q.mu.Lock()
	q.pending[req.ID] = req
	q.mu.Unlock()
	defer func() {
		q.mu.Lock()
		delete(q.pending, req.ID)
		q.mu.Unlock()
	}()
	q.bus.Publish(ctx, bus.Event{Type: bus.QuestionAsked, SessionID: req.SessionID, Properties: req})
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case e := <-sub.C:
			switch p := e.Properties.(type) {
			case QuestionReply:
				if p.RequestID == req.ID {
					return p.Answers, nil
				}
			case QuestionRejection:
				if p.RequestID == req.ID {
					return nil, &QuestionRejectedError{}
				}
			}
		}
	}
}

// Pending lists the questions waiting for an answer in a session (every
// session when sessionID is empty), oldest first.
func (q *Questions) Pending(sessionID string) []QuestionRequest {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []QuestionRequest
	for _, r := range q.pending {
		if sessionID == "" || r.SessionID == sessionID {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b QuestionRequest) int { return strings.Compare(a.ID, b.ID) })
	return out
}

func (q *Questions) lookup(requestID string) (QuestionRequest, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	r, ok := q.pending[requestID]
	if !ok {
		return r, fmt.Errorf("no question %s is waiting for an answer", requestID)
	}
	return r, nil
}

// Reply answers the pending request requestID.
func (q *Questions) Reply(ctx context.Context, requestID string, answers [][]string) error {
	r, err := q.lookup(requestID)
	if err != nil {
		return err
	}
	q.bus.Publish(ctx, bus.Event{Type: bus.QuestionReplied, SessionID: r.SessionID,
		Properties: QuestionReply{RequestID: requestID, SessionID: r.SessionID, Answers: answers}})
	return nil
}

// Reject dismisses the pending request requestID.
func (q *Questions) Reject(ctx context.Context, requestID string) error {
	r, err := q.lookup(requestID)
	if err != nil {
		return err
	}
	q.bus.Publish(ctx, bus.Event{Type: bus.QuestionRejected, SessionID: r.SessionID,
		Properties: QuestionRejection{RequestID: requestID, SessionID: r.SessionID}})
	return nil
}

type questionParams struct {
	Questions []QuestionInfo `json:"questions" jsonschema:"Questions to ask"`
}

func newQuestion(env Env) Tool {
	return Must(Def[questionParams]{
		Traits:      Traits{Kind: KindThink, Contained: true},
		Summary:     questionSummary,
		ID:          "question",
		Description: describe("question"),
		Schema: func(s *jsonschema.Schema) {
			prop(s, "questions").MinItems = ptr(1)
			prop(prop(s, "questions").Items, "header").MaxLength = ptr(30)
		},
		Truncate: env.Truncator,
		Run: func(ctx context.Context, call *Call, p questionParams) (*Result, error) {
			if env.Questions == nil {
				return nil, fmt.Errorf("questions cannot be asked in this session")
			}
			if err := call.Ask(ctx, permission.Request{
				Permission: "question",
				Patterns:   []string{"*"},
				Always:     []string{"*"},
				Metadata:   map[string]any{},
			}); err != nil {
				return nil, err
			}
			answers, err := env.Questions.Ask(ctx, QuestionRequest{
				SessionID: call.SessionID,
				Questions: p.Questions,
				Tool:      &permission.ToolRef{MessageID: call.MessageID, CallID: call.ID},
			})
			if err != nil {
				return nil, err
			}
			parts := make([]string, len(p.Questions))
			for i, qi := range p.Questions {
				a := "Unanswered"
				if i < len(answers) && len(answers[i]) > 0 {
					a = strings.Join(answers[i], ", ")
				}
				parts[i] = fmt.Sprintf("%q=%q", qi.Question, a)
			}
			noun := "questions"
			if len(p.Questions) == 1 {
				noun = "question"
			}
			return &Result{
				Title:    fmt.Sprintf("Asked %d %s", len(p.Questions), noun),
				Output:   "User has answered your questions: " + strings.Join(parts, ", ") + ". You can now continue with the user's answers in mind.",
				Metadata: map[string]any{"answers": answers},
			}, nil
		},
	})
}

// questionSummary lists the headers of a call's questions.
func questionSummary(p questionParams, _ string) string {
	var qs []string
	for _, q := range p.Questions {
		qs = append(qs, cmp.Or(q.Header, q.Question))
	}
	return strings.Join(qs, "; ")
}
