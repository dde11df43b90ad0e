package github

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	gh "github.com/google/go-github/v93/github"
)

// Kind is what an event asks of codeloop.
type Kind int

// The kinds of request.
const (
	// KindIssue: work on an issue and open a pull request.
	KindIssue Kind = iota + 1
	// KindPRComment: a comment on a pull request's conversation; work on
	// its branch.
	KindPRComment
	// KindReviewComment: a comment on a line of a pull request's diff;
	// work on its branch.
	KindReviewComment
	// KindReview: review a pull request, changing nothing.
	KindReview
)

func (k Kind) String() string {
	switch k {
	case KindIssue:
		return "issue"
	case KindPRComment:
		return "pull request comment"
	case KindReviewComment:
		return "review comment"
	case KindReview:
		return "review"
	}
	return "unknown"
}

// Request is what an event asks: the issue or pull request, the comment
// that asked and who wrote it.
type Request struct {
	Kind   Kind
	Number int
	// Title and Body are the issue's or pull request's.
	Title, Body string
	// Comment is the text that asked, with the trigger word; CommentID its
	// id (zero for an issue's own text or a review).
	Comment   string
	CommentID int64
	// Actor is who asked: the comment's author, else the event's sender.
	Actor string
	// TextAuthor, when set, wrote the text that holds the trigger word (an
	// issue's title or body) and is not necessarily Actor: both must have
	// write access.
	TextAuthor string
	// Path, Line and DiffHunk locate a review comment.
	Path     string
	Line     int
	DiffHunk string
	// DefaultBranch is the repository's default branch.
	DefaultBranch string
}

// TriggerOptions say which events start a run.
type TriggerOptions struct {
	// Words are the trigger words ("/codeloop", "/cl"); a comment starts a
	// run when it holds one as a word of its own.
	Words []string
	// Review turns pull_request events into reviews.
	Review bool
}

// ReadEvent reads the event file the runner wrote and returns the request
// it makes, or nil and the reason it makes none.
func ReadEvent(name, path string, o TriggerOptions) (*Request, string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("reading the event file: %w", err)
	}
	return ParseEvent(name, data, o)
}

// ParseEvent returns the request an event's payload makes, or nil and the
// reason it makes none.
func ParseEvent(name string, payload []byte, o TriggerOptions) (*Request, string, error) {
	if !json.Valid(payload) {
		return nil, "", fmt.Errorf("the %s event file is not valid JSON", name)
	}
	switch name {
	case "issue_comment", "pull_request_review_comment", "issues", "pull_request":
	default:
		return nil, fmt.Sprintf("codeloop does not act on %s events", name), nil
	}
	v, err := gh.ParseWebHook(name, payload)
	if err != nil {
		return nil, "", fmt.Errorf("the %s event file: %w", name, err)
	}
	var r *Request
	var why string
	switch ev := v.(type) {
	case *gh.IssueCommentEvent:
		r, why, err = fromIssueComment(ev, o)
	case *gh.PullRequestReviewCommentEvent:
		r, why, err = fromReviewComment(ev, o)
	case *gh.IssuesEvent:
		r, why, err = fromIssues(ev, o)
	case *gh.PullRequestEvent:
		r, why, err = fromPullRequest(ev, o)
	}
	if err != nil {
		return nil, "", fmt.Errorf("the %s event file: %w", name, err)
	}
	return r, why, nil
}

var errMissing = errors.New("a field the event must have is missing")

func fromIssueComment(ev *gh.IssueCommentEvent, o TriggerOptions) (*Request, string, error) {
	if ev.Issue == nil || ev.Comment == nil || ev.Issue.Number == nil || ev.Comment.User == nil || ev.Repo == nil {
		return nil, "", errMissing
	}
	if ev.GetAction() != "created" {
		return nil, "the comment was " + ev.GetAction() + ", not created", nil
	}
	if ev.Comment.User.GetType() == "Bot" {
		return nil, "the comment is a bot's", nil
	}
	if !Triggered(ev.Comment.GetBody(), o.Words) {
		return nil, "the comment does not mention " + strings.Join(o.Words, " or "), nil
	}
	r := &Request{
		Kind: KindIssue, Number: ev.Issue.GetNumber(), Title: ev.Issue.GetTitle(), Body: ev.Issue.GetBody(),
		Comment: ev.Comment.GetBody(), CommentID: ev.Comment.GetID(), Actor: ev.Comment.User.GetLogin(),
		DefaultBranch: ev.Repo.GetDefaultBranch(),
	}
	if ev.Issue.IsPullRequest() {
		r.Kind = KindPRComment
	}
	return r, "", nil
}

func fromReviewComment(ev *gh.PullRequestReviewCommentEvent, o TriggerOptions) (*Request, string, error) {
	if ev.PullRequest == nil || ev.Comment == nil || ev.PullRequest.Number == nil || ev.Comment.User == nil || ev.Repo == nil {
		return nil, "", errMissing
	}
	if ev.GetAction() != "created" {
		return nil, "the review comment was " + ev.GetAction() + ", not created", nil
	}
	if ev.Comment.User.GetType() == "Bot" {
		return nil, "the review comment is a bot's", nil
	}
	if !Triggered(ev.Comment.GetBody(), o.Words) {
		return nil, "the review comment does not mention " + strings.Join(o.Words, " or "), nil
	}
	line := ev.Comment.GetLine()
	if line == 0 {
		line = ev.Comment.GetOriginalLine()
	}
	return &Request{
		Kind: KindReviewComment, Number: ev.PullRequest.GetNumber(), Title: ev.PullRequest.GetTitle(), Body: ev.PullRequest.GetBody(),
		Comment: ev.Comment.GetBody(), CommentID: ev.Comment.GetID(), Actor: ev.Comment.User.GetLogin(),
		Path: ev.Comment.GetPath(), Line: line, DiffHunk: ev.Comment.GetDiffHunk(),
		DefaultBranch: ev.Repo.GetDefaultBranch(),
	}, "", nil
}

func fromIssues(ev *gh.IssuesEvent, o TriggerOptions) (*Request, string, error) {
	if ev.Issue == nil || ev.Issue.Number == nil || ev.Sender == nil || ev.Repo == nil {
		return nil, "", errMissing
	}
	switch ev.GetAction() {
	case "opened", "assigned":
	default:
		return nil, "the issue was " + ev.GetAction(), nil
	}
	if !Triggered(ev.Issue.GetTitle()+"\n"+ev.Issue.GetBody(), o.Words) {
		return nil, "the issue does not mention " + strings.Join(o.Words, " or "), nil
	}
	return &Request{
		Kind: KindIssue, Number: ev.Issue.GetNumber(), Title: ev.Issue.GetTitle(), Body: ev.Issue.GetBody(),
		Actor: ev.Sender.GetLogin(), TextAuthor: ev.Issue.GetUser().GetLogin(), DefaultBranch: ev.Repo.GetDefaultBranch(),
	}, "", nil
}

func fromPullRequest(ev *gh.PullRequestEvent, o TriggerOptions) (*Request, string, error) {
	if ev.PullRequest == nil || ev.PullRequest.Number == nil || ev.Sender == nil || ev.Repo == nil {
		return nil, "", errMissing
	}
	if !o.Review {
		return nil, "pull_request events start reviews only with --review", nil
	}
	switch ev.GetAction() {
	case "opened", "synchronize", "reopened", "ready_for_review":
	default:
		return nil, "the pull request was " + ev.GetAction(), nil
	}
	if ev.PullRequest.GetDraft() {
		return nil, "the pull request is a draft", nil
	}
	return &Request{
		Kind: KindReview, Number: ev.PullRequest.GetNumber(), Title: ev.PullRequest.GetTitle(), Body: ev.PullRequest.GetBody(),
		Actor: ev.Sender.GetLogin(), DefaultBranch: ev.Repo.GetDefaultBranch(),
	}, "", nil
}

// Triggered reports whether text holds one of words as a word of its own:
// "/codeloop fix it" and "please /cl" do, "/codeloopy" and "a/cl" do not.
func Triggered(text string, words []string) bool {
	for _, w := range words {
		if w == "" {
			continue
		}
		for i := 0; ; {
			j := strings.Index(text[i:], w)
			if j < 0 {
				break
			}
			start, end := i+j, i+j+len(w)
			if (start == 0 || boundary(text[start-1])) && (end == len(text) || boundary(text[end])) {
				return true
			}
			i = start + 1
		}
	}
	return false
}

func boundary(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '.', ',', ':', ';', '!', '?', '(', ')', '`', '"', '\'':
		return true
	}
	return false
}
