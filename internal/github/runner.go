// Package github answers `/codeloop` in GitHub issues and pull requests
// from inside a GitHub Actions job: it reads the event the job was started
// by, checks that whoever asked may write to the repository, runs the task
// through internal/client and hands the result back as a branch and a pull
// request, commits on the pull request's branch, or a review.
//
// It reaches the engine only through internal/client; the command that
// calls it opens the engine after the checkout is on the right commit and
// decides from Options.Open's argument whether the project's own
// configuration is trusted.
package github

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/codeloop/codeloop/internal/client"
)

// Options configure a run.
type Options struct {
	Env     Env
	Trigger TriggerOptions
	// Agent and Model answer the task; empty and nil for the defaults.
	Agent string
	Model *client.ModelRef
	// Timeout bounds the model's work; MaxSteps its model steps (0: no
	// limit).
	Timeout  time.Duration
	MaxSteps int
	// Export is where the session is written as JSON for the workflow's
	// artifact; empty for $RUNNER_TEMP/codeloop-session.json, "-" for
	// nowhere.
	Export string
	// Open opens the engine on the checkout, which is then on the commit
	// the task works on. trusted says whether the project's own
	// configuration may apply: false when the commit comes from a fork.
	Open func(ctx context.Context, trusted bool) (client.Client, error)
	// HTTP is the client for GitHub's API; nil for a default with a
	// timeout.
	HTTP *http.Client
	// Log receives a line for each thing done.
	Log io.Writer
	// Committer names the author of the commits.
	Committer, CommitterEmail string
}

// Run does what the event of o.Env asks. An event that asks nothing, or
// that someone without write permission wrote, ends the run without error
// and without touching anything.
func Run(ctx context.Context, o Options) error {
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Minute
	}
	if o.Committer == "" {
		o.Committer, o.CommitterEmail = "github-actions[bot]", "41898282+github-actions[bot]@users.noreply.github.com"
	}
	req, why, err := ReadEvent(o.Env.EventName, o.Env.EventPath, o.Trigger)
	if err != nil {
		return err
	}
	if req == nil {
		fmt.Fprintf(o.Log, "codeloop: nothing to do: %s\n", why)
		return nil
	}
	a, err := newAPI(o.Env, o.HTTP)
	if err != nil {
		return err
	}
	ok, err := a.CanWrite(ctx, req.Actor)
	if err != nil {
		return err
	}
	if !ok {
		fmt.Fprintf(o.Log, "codeloop: @%s cannot write to %s: nothing done\n", req.Actor, o.Env.Repository)
		return nil
	}
	// The trigger word in an issue's text counts only when its author
	// could have asked too: assigning an outsider's issue asks nothing.
	if req.TextAuthor != "" && !strings.EqualFold(req.TextAuthor, req.Actor) {
		if ok, err = a.CanWrite(ctx, req.TextAuthor); err != nil {
			return err
		}
		if !ok {
			fmt.Fprintf(o.Log, "codeloop: @%s, who wrote the issue, cannot write to %s: nothing done\n", req.TextAuthor, o.Env.Repository)
			return nil
		}
	}
	dir := o.Env.Workspace
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return err
		}
	}
	g := &git{dir: dir, server: o.Env.ServerURL, token: o.Env.Token, env: processEnv(), committer: o.Committer, email: o.CommitterEmail}
	r := &runner{o: o, req: req, api: a, git: g}
	return r.run(ctx)
}

// runner holds one run's state.
type runner struct {
	o        Options
	req      *Request
	api      *api
	git      *git
	origin   string
	pr       pull
	progress *progress
}

func (r *runner) logf(format string, args ...any) {
	fmt.Fprintln(r.o.Log, "codeloop: "+redact(fmt.Sprintf(format, args...), r.o.Env.Token))
}

func (r *runner) run(ctx context.Context) error {
	req := r.req
	var err error
	if r.origin, err = r.git.originURL(ctx); err != nil {
		return err
	}
	if dirty, err := r.git.dirty(ctx); err != nil {
		return err
	} else if dirty {
		return errors.New("the checkout has uncommitted changes: codeloop github run needs a clean checkout")
	}
	if req.Kind != KindIssue {
		if r.pr, err = r.api.Pull(ctx, req.Number); err != nil {
			return err
		}
	}
	r.logf("%s #%d asked by @%s", req.Kind, req.Number, req.Actor)
	if err := r.api.React(ctx, req, "eyes"); err != nil {
		return err
	}
	r.progress = &progress{api: r.api, number: req.Number, runURL: r.o.Env.RunURL(), kind: req.Kind}
	if err := r.progress.start(ctx); err != nil {
		return err
	}
	err = r.work(ctx)
	if err != nil {
		r.progress.fail(context.WithoutCancel(ctx), err)
		return err
	}
	return nil
}

// work checks out the commit the task is about, runs the model and hands
// the result back.
func (r *runner) work(ctx context.Context) error {
	req := r.req
	base, err := r.git.head(ctx)
	if err != nil {
		return err
	}
	trusted := true
	var branch string
	switch {
	case req.Kind == KindIssue:
		if branch, err = r.freeBranch(ctx, branchName(req.Number, req.Title)); err != nil {
			return err
		}
		if _, err := r.git.run(ctx, "checkout", "--quiet", "-B", branch); err != nil {
			return err
		}
	case req.Kind == KindReview || r.pr.Fork():
		// A fork's branch cannot be pushed to, and its files are not the
		// maintainers': fetch the pull request's head read-only.
		trusted = !r.pr.Fork()
		if base, err = r.checkout(ctx, fmt.Sprintf("refs/pull/%d/head", req.Number)); err != nil {
			return err
		}
	default:
		branch = r.pr.HeadRef
		if base, err = r.checkout(ctx, "refs/heads/"+branch); err != nil {
			return err
		}
	}
	if req.Kind == KindReview {
		if _, err := r.git.fetch(ctx, r.origin, "refs/heads/"+r.pr.BaseRef); err != nil {
			return err
		}
		if r.pr.BaseSHA == "" {
			r.pr.BaseSHA = "FETCH_HEAD"
		}
	}
	if !trusted {
		r.progress.note("The pull request comes from a fork: the repository's own codeloop configuration was not trusted for this run.")
	}
	c, err := r.o.Open(ctx, trusted)
	if err != nil {
		return fmt.Errorf("opening codeloop: %w", err)
	}
	defer c.Close()
	r.logf("working (trusted project config: %t)", trusted)
	res, err := prompt(ctx, c, taskText(r.o.Env.Repository, req, r.pr), agentOptions{
		Agent: r.o.Agent, Model: r.o.Model, Timeout: r.o.Timeout, MaxSteps: r.o.MaxSteps,
		Progress: func(line string) {
			r.progress.activity(line)
			r.logf("%s", line)
			if err := r.progress.working(ctx, "is working on this…", false); err != nil {
				r.logf("%v", err)
			}
		},
	})
	r.progress.done(res)
	if err == nil {
		if err := r.progress.working(ctx, "is handing back the result…", true); err != nil {
			return err
		}
	}
	if res.SessionID != "" {
		if xerr := r.export(ctx, c, res.SessionID); xerr != nil {
			r.logf("exporting the session: %v", xerr)
		}
	}
	if err != nil {
		return err
	}
	switch {
	case req.Kind == KindReview:
		return r.review(ctx, res)
	case req.Kind == KindIssue:
		return r.openPull(ctx, base, branch, res)
	case r.pr.Fork():
		return r.postDiff(ctx, base, res)
	default:
		return r.pushToPull(ctx, base, branch, res)
	}
}

// freeBranch returns name, or name with the run's id when origin has a
// branch of that name already (an earlier run on the same issue), so that
// a run never overwrites another's work.
func (r *runner) freeBranch(ctx context.Context, name string) (string, error) {
	out, err := r.git.remote(ctx, "ls-remote", "--heads", r.origin, "refs/heads/"+name)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(out) == "" {
		return name, nil
	}
	suffix := r.o.Env.RunID
	if suffix == "" {
		suffix = strconv.FormatInt(time.Now().Unix(), 10)
	}
	return name + "-" + suffix, nil
}

// checkout fetches ref and checks it out detached, returning its commit.
func (r *runner) checkout(ctx context.Context, ref string) (string, error) {
	sha, err := r.git.fetch(ctx, r.origin, ref)
	if err != nil {
		return "", err
	}
	if _, err := r.git.run(ctx, "checkout", "--quiet", "--detach", sha); err != nil {
		return "", err
	}
	return sha, nil
}

// commit commits what the model changed and reports whether the branch
// moved past base.
func (r *runner) commit(ctx context.Context, base, subject, answer string) (bool, error) {
	msg := subject
	if s := summary(answer, 2000); s != "" {
		msg += "\n\n" + s
	}
	if _, err := r.git.commitAll(ctx, msg); err != nil {
		return false, err
	}
	head, err := r.git.head(ctx)
	if err != nil {
		return false, err
	}
	return head != base, nil
}

func (r *runner) openPull(ctx context.Context, base, branch string, res agentRun) error {
	req := r.req
	moved, err := r.commit(ctx, base, fmt.Sprintf("Address #%d: %s", req.Number, req.Title), res.Answer)
	if err != nil {
		return err
	}
	if !moved {
		return r.progress.finish(ctx, "No files were changed, so no pull request was opened.", res.Answer)
	}
	if err := r.git.push(ctx, r.origin, branch); err != nil {
		return err
	}
	r.logf("pushed %s", branch)
	target := req.DefaultBranch
	if target == "" {
		target = "main"
	}
	body := fmt.Sprintf("Closes #%d\n\n%s\n\n---\nOpened by codeloop at @%s's request", req.Number, summary(res.Answer, 30000), req.Actor)
	if u := r.o.Env.RunURL(); u != "" {
		body += " ([run](" + u + "))"
	}
	body += "."
	n, url, err := r.api.OpenPull(ctx, branch, target, req.Title, body)
	if err != nil {
		// No branch is left behind without its pull request.
		if derr := r.git.deleteBranch(context.WithoutCancel(ctx), r.origin, branch); derr != nil {
			r.logf("removing %s: %v", branch, derr)
		}
		return err
	}
	r.logf("opened pull request #%d", n)
	return r.progress.finish(ctx, fmt.Sprintf("Opened #%d from `%s`: %s", n, branch, url), res.Answer)
}

func (r *runner) pushToPull(ctx context.Context, base, branch string, res agentRun) error {
	req := r.req
	moved, err := r.commit(ctx, base, "codeloop: "+firstLine(strings.TrimSpace(stripTrigger(req.Comment, r.o.Trigger.Words))), res.Answer)
	if err != nil {
		return err
	}
	result := "No files were changed."
	if moved {
		if err := r.git.push(ctx, r.origin, branch); err != nil {
			return err
		}
		head, _ := r.git.head(ctx)
		r.logf("pushed %s to %s", short(head), branch)
		result = fmt.Sprintf("Pushed %s to `%s`.", short(head), branch)
	}
	if err := r.progress.finish(ctx, result, res.Answer); err != nil {
		return err
	}
	if req.Kind == KindReviewComment {
		return r.api.ReplyToReviewComment(ctx, req.Number, req.CommentID, result+"\n\n"+summary(res.Answer, 4000))
	}
	return nil
}

// maxDiff bounds the diff posted for a fork's pull request.
const maxDiff = 60000

func (r *runner) postDiff(ctx context.Context, base string, res agentRun) error {
	diff, err := r.git.diff(ctx, base)
	if err != nil {
		return err
	}
	if strings.TrimSpace(diff) == "" {
		return r.progress.finish(ctx, "No files were changed.", res.Answer)
	}
	if len(diff) > maxDiff {
		diff = diff[:maxDiff] + "\n… (cut: the diff is longer)"
	}
	result := "This pull request's branch is in a fork, which codeloop cannot push to. The change, to apply with `git apply`:\n\n" +
		"```diff\n" + diff + "\n```"
	return r.progress.finish(ctx, result, res.Answer)
}

func (r *runner) review(ctx context.Context, res agentRun) error {
	diff, err := r.git.run(ctx, "diff", "--no-color", "--no-ext-diff", r.pr.BaseSHA+"...HEAD")
	if err != nil {
		if diff, err = r.git.run(ctx, "diff", "--no-color", "--no-ext-diff", r.pr.BaseSHA, "HEAD"); err != nil {
			return err
		}
	}
	text, comments := ParseReview(res.Answer)
	text, comments = SplitComments(text, comments, DiffLines(diff))
	if text == "" {
		text = "Reviewed by codeloop."
	}
	head := r.pr.HeadSHA
	if h, err := r.git.head(ctx); err == nil {
		head = h
	}
	if err := r.api.Review(ctx, r.req.Number, head, text, comments); err != nil {
		return err
	}
	r.logf("posted a review with %d inline comments", len(comments))
	return r.progress.finish(ctx, fmt.Sprintf("Posted a review with %d inline comments.", len(comments)), "")
}

// export writes the session in `codeloop export`'s shape.
func (r *runner) export(ctx context.Context, c client.Client, sessionID string) error {
	path := r.o.Export
	if path == "-" {
		return nil
	}
	if path == "" {
		if r.o.Env.RunnerTemp == "" {
			return nil
		}
		path = filepath.Join(r.o.Env.RunnerTemp, "codeloop-session.json")
	}
	rctx := context.WithoutCancel(ctx)
	info, err := c.GetSession(rctx, sessionID)
	if err != nil {
		return err
	}
	msgs, err := c.Messages(rctx, sessionID, client.MessagesOptions{})
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(struct {
		Info     client.Session   `json:"info"`
		Messages []client.Message `json:"messages"`
	}{info, msgs}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, []byte(redact(string(data), r.o.Env.Token)+"\n"), 0o600); err != nil {
		return err
	}
	r.logf("session written to %s", path)
	return nil
}

// summary is the answer, cut to max bytes on a line boundary.
func summary(answer string, max int) string {
	s := strings.TrimSpace(answer)
	if len(s) <= max {
		return s
	}
	s = s[:max]
	if i := strings.LastIndexByte(s, '\n'); i > max/2 {
		s = s[:i]
	}
	return s + "\n…"
}

// stripTrigger removes the trigger words from a comment.
func stripTrigger(text string, words []string) string {
	for _, w := range words {
		if w != "" {
			text = strings.ReplaceAll(text, w, "")
		}
	}
	return strings.TrimSpace(text)
}
