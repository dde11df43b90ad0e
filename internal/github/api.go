package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	gh "github.com/google/go-github/v93/github"
)

// api is the part of GitHub's REST API a run uses.
type api struct {
	c           *gh.Client
	owner, repo string
	token       string
}

// newAPI returns a client for e's API address (GitHub Enterprise Server's
// /api/v3 too) authenticated with e's token.
func newAPI(e Env, hc *http.Client) (*api, error) {
	base := strings.TrimRight(e.APIURL, "/") + "/"
	if hc == nil {
		hc = &http.Client{Timeout: 60 * time.Second}
	}
	c, err := gh.NewClient(gh.WithHTTPClient(hc), gh.WithAuthToken(e.Token), gh.WithURLs(&base, &base),
		gh.WithUserAgent("codeloop"))
	if err != nil {
		return nil, fmt.Errorf("GITHUB_API_URL %q: %w", e.APIURL, err)
	}
	return &api{c: c, owner: e.Owner(), repo: e.Repo(), token: e.Token}, nil
}

// fail turns an API error into one line that says what failed, without
// the token.
func (a *api) fail(what string, err error) error {
	var rl *gh.RateLimitError
	var abuse *gh.AbuseRateLimitError
	var er *gh.ErrorResponse
	var msg string
	switch {
	case errors.As(err, &abuse):
		msg = "GitHub's secondary rate limit"
		if abuse.RetryAfter != nil {
			msg += fmt.Sprintf(": retry after %s", abuse.RetryAfter.Round(time.Second))
		}
	case errors.As(err, &rl):
		msg = "GitHub's rate limit: resets at " + rl.Rate.Reset.UTC().Format(time.RFC3339)
	case errors.As(err, &er) && er.Response != nil:
		msg = fmt.Sprintf("GitHub answered %d", er.Response.StatusCode)
		if m := firstLine(er.Message); m != "" {
			msg += ": " + m
		}
		if ra := er.Response.Header.Get("Retry-After"); ra != "" {
			msg += " (retry after " + ra + " s)"
		}
	default:
		msg = firstLine(err.Error())
	}
	return fmt.Errorf("%s: %s", what, redact(msg, a.token))
}

// CanWrite reports whether user may push to the repository: its
// permission is write, maintain or admin. It asks the API, never the
// event's author_association.
func (a *api) CanWrite(ctx context.Context, user string) (bool, error) {
	p, _, err := a.c.Repositories.GetPermissionLevel(ctx, a.owner, a.repo, user)
	if err != nil {
		var er *gh.ErrorResponse
		if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound {
			return false, nil // not a collaborator
		}
		return false, a.fail("checking "+user+"'s permission", err)
	}
	switch p.GetPermission() {
	case "admin", "write", "maintain":
		return true, nil
	}
	switch p.GetRoleName() {
	case "admin", "maintain", "write":
		return true, nil
	}
	return false, nil
}

// React adds a reaction to what asked: the comment, review comment or
// issue.
func (a *api) React(ctx context.Context, r *Request, content string) error {
	var err error
	switch {
	case r.Kind == KindReviewComment:
		_, _, err = a.c.Reactions.CreatePullRequestCommentReaction(ctx, a.owner, a.repo, r.CommentID, content)
	case r.CommentID != 0:
		_, _, err = a.c.Reactions.CreateIssueCommentReaction(ctx, a.owner, a.repo, r.CommentID, content)
	default:
		_, _, err = a.c.Reactions.CreateIssueReaction(ctx, a.owner, a.repo, r.Number, content)
	}
	if err != nil {
		return a.fail("adding a reaction", err)
	}
	return nil
}

// Comment posts a comment on an issue or pull request and returns its id.
func (a *api) Comment(ctx context.Context, number int, body string) (int64, error) {
	c, _, err := a.c.Issues.CreateComment(ctx, a.owner, a.repo, number, gh.IssueCommentRequest{Body: redact(body, a.token)})
	if err != nil {
		return 0, a.fail(fmt.Sprintf("commenting on #%d", number), err)
	}
	return c.GetID(), nil
}

// EditComment replaces a comment's text.
func (a *api) EditComment(ctx context.Context, id int64, body string) error {
	_, _, err := a.c.Issues.UpdateComment(ctx, a.owner, a.repo, id, gh.IssueCommentRequest{Body: redact(body, a.token)})
	if err != nil {
		return a.fail("updating the progress comment", err)
	}
	return nil
}

// ReplyToReviewComment answers in a review comment's thread.
func (a *api) ReplyToReviewComment(ctx context.Context, number int, id int64, body string) error {
	_, _, err := a.c.PullRequests.CreateCommentInReplyTo(ctx, a.owner, a.repo, number, redact(body, a.token), id)
	if err != nil {
		return a.fail("replying to the review comment", err)
	}
	return nil
}

// pull is what a run needs of a pull request.
type pull struct {
	HeadRef, HeadSHA, HeadRepo string // HeadRepo is owner/name, empty when the fork is gone
	BaseRef, BaseSHA, BaseRepo string
	HTMLURL                    string
}

// Fork reports whether the pull request's branch lives in another
// repository.
func (p pull) Fork() bool { return !strings.EqualFold(p.HeadRepo, p.BaseRepo) }

// Pull reads a pull request.
func (a *api) Pull(ctx context.Context, number int) (pull, error) {
	p, _, err := a.c.PullRequests.Get(ctx, a.owner, a.repo, number)
	if err != nil {
		return pull{}, a.fail(fmt.Sprintf("reading pull request #%d", number), err)
	}
	out := pull{
		HeadRef: p.GetHead().GetRef(), HeadSHA: p.GetHead().GetSHA(), HeadRepo: p.GetHead().GetRepo().GetFullName(),
		BaseRef: p.GetBase().GetRef(), BaseSHA: p.GetBase().GetSHA(), BaseRepo: p.GetBase().GetRepo().GetFullName(),
		HTMLURL: p.GetHTMLURL(),
	}
	if out.HeadRef == "" || out.HeadSHA == "" || out.BaseRef == "" {
		return pull{}, fmt.Errorf("reading pull request #%d: the answer lacks its head or base", number)
	}
	if out.BaseRepo == "" {
		out.BaseRepo = a.owner + "/" + a.repo
	}
	return out, nil
}

// OpenPull opens a pull request from head to base and returns its number
// and address.
func (a *api) OpenPull(ctx context.Context, head, base, title, body string) (int, string, error) {
	p, _, err := a.c.PullRequests.Create(ctx, a.owner, a.repo, gh.CreatePullRequest{
		Title: new(title), Head: head, Base: base, Body: new(redact(body, a.token)), MaintainerCanModify: new(true),
	})
	if err != nil {
		return 0, "", a.fail("opening the pull request", err)
	}
	return p.GetNumber(), p.GetHTMLURL(), nil
}

// Review posts a review with inline comments on the pull request's head
// commit.
func (a *api) Review(ctx context.Context, number int, commit, body string, comments []ReviewComment) error {
	req := &gh.PullRequestReviewRequest{CommitID: new(commit), Body: new(redact(body, a.token)), Event: new("COMMENT")}
	for _, c := range comments {
		req.Comments = append(req.Comments, &gh.DraftReviewComment{
			Path: new(c.Path), Line: new(c.Line), Side: new("RIGHT"), Body: new(redact(c.Body, a.token)),
		})
	}
	if _, _, err := a.c.PullRequests.CreateReview(ctx, a.owner, a.repo, number, req); err != nil {
		return a.fail(fmt.Sprintf("posting the review of #%d", number), err)
	}
	return nil
}

// redact hides the token in s.
func redact(s, token string) string {
	if token == "" {
		return s
	}
	return strings.ReplaceAll(s, token, "***")
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
