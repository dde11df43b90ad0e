package github

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// editEvery is how often at most the comment is edited while the model
// works.
const editEvery = 15 * time.Second

// maxActivity bounds the activity lines a progress comment lists.
const maxActivity = 40

// progress is the one comment a run keeps up to date.
type progress struct {
	api    *api
	number int
	runURL string
	kind   Kind

	id       int64
	notes    []string
	lines    []string
	dropped  int
	denied   []string
	cost     float64
	steps    int
	stopped  string
	finished bool
	lastEdit time.Time
}

func (p *progress) header(state string) string {
	h := "**codeloop** " + state
	if p.runURL != "" {
		h += " · [run](" + p.runURL + ")"
	}
	return h
}

func (p *progress) start(ctx context.Context) error {
	id, err := p.api.Comment(ctx, p.number, p.header("is working on this…"))
	if err != nil {
		return err
	}
	p.id = id
	p.lastEdit = time.Now()
	return nil
}

// working shows the activity so far, at most every editEvery unless now
// is set, and returns the API's error.
func (p *progress) working(ctx context.Context, state string, now bool) error {
	if p.id == 0 || p.finished || !now && time.Since(p.lastEdit) < editEvery {
		return nil
	}
	p.lastEdit = time.Now()
	return p.api.EditComment(ctx, p.id, p.body(state, "", ""))
}

func (p *progress) note(s string) { p.notes = append(p.notes, s) }
func (p *progress) activity(s string) {
	if len(p.lines) >= maxActivity {
		p.dropped++
		return
	}
	p.lines = append(p.lines, s)
}

// done records the model's run.
func (p *progress) done(r agentRun) {
	p.denied, p.cost, p.steps, p.stopped = r.Denied, r.Cost, r.Steps, r.Stopped
}

func (p *progress) body(state, result, answer string) string {
	var b strings.Builder
	b.WriteString(p.header(state) + "\n\n")
	if result != "" {
		b.WriteString(result + "\n\n")
	}
	if answer != "" && p.kind != KindReview {
		b.WriteString(quote(summary(answer, 20000)) + "\n\n")
	}
	for _, n := range p.notes {
		b.WriteString("> [!NOTE]\n> " + n + "\n\n")
	}
	if len(p.denied) > 0 {
		b.WriteString("> [!NOTE]\n> No one can approve permissions in this run, so these requests were denied:\n")
		for _, d := range p.denied {
			b.WriteString("> - `" + strings.ReplaceAll(d, "`", "'") + "`\n")
		}
		b.WriteString("> Allow what the task needs in the repository's codeloop config (`permission`).\n\n")
	}
	if p.stopped != "" {
		b.WriteString("Stopped: " + p.stopped + ".\n\n")
	}
	if len(p.lines) > 0 {
		b.WriteString("<details><summary>Activity</summary>\n\n")
		for _, l := range p.lines {
			b.WriteString("- " + strings.ReplaceAll(l, "\n", " ") + "\n")
		}
		if p.dropped > 0 {
			fmt.Fprintf(&b, "- … and %d more\n", p.dropped)
		}
		b.WriteString("\n</details>\n\n")
	}
	fmt.Fprintf(&b, "<sub>%d model steps · cost $%.4f</sub>\n", p.steps, p.cost)
	return b.String()
}

// finish writes the run's result into the comment.
func (p *progress) finish(ctx context.Context, result, answer string) error {
	p.finished = true
	return p.api.EditComment(ctx, p.id, p.body("finished", result, answer))
}

// fail writes the error into the comment, once; errors doing so are
// dropped, the run's own error is the one reported.
func (p *progress) fail(ctx context.Context, err error) {
	if p.finished || p.id == 0 {
		return
	}
	p.finished = true
	_ = p.api.EditComment(ctx, p.id, p.body("failed", "Error: "+firstLine(err.Error()), ""))
}

// quote makes text a Markdown block quote.
func quote(text string) string {
	return "> " + strings.ReplaceAll(strings.TrimSpace(text), "\n", "\n> ")
}
