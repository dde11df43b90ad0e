package lsp

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// MaxFileDiagnostics is the most diagnostics reported for a changed file.
const MaxFileDiagnostics = 20

// Diagnose sends the current content of paths (absolute; files just
// changed) to the servers that serve them, waits for their diagnostics
// (see Timing) and returns a report for the tool result: each file's
// errors (and warnings where the server's config asks), the number of new
// errors the change caused in other files, and servers that failed. It
// returns "" when there is nothing to say or no server applies.
func (m *Manager) Diagnose(ctx context.Context, paths []string) string {
	if !m.Enabled() {
		return ""
	}
	begin := time.Now()
	deadline := begin.Add(m.opts.Timing.Max)
	type job struct {
		in    *instance
		paths []string
	}
	var jobs []*job
	for _, p := range paths {
		for _, s := range m.serversFor(p) {
			in, _ := m.instanceFor(s, p)
			if in == nil {
				continue
			}
			i := slices.IndexFunc(jobs, func(j *job) bool { return j.in == in })
			if i < 0 {
				jobs = append(jobs, &job{in: in})
				i = len(jobs) - 1
			}
			jobs[i].paths = append(jobs[i].paths, p)
		}
	}
	var r report
	for _, j := range jobs {
		m.mu.Lock()
		warm := j.in.state == Running
		m.mu.Unlock()
		c := m.ready(ctx, j.in, deadline)
		if c == nil {
			if msg := m.problem(j.in); msg != "" {
				r.problems = append(r.problems, msg)
			}
			continue
		}
		r.diagnose(ctx, c, j.paths, warm, begin, deadline, m.opts.Timing)
		if !c.alive() {
			if msg := m.problem(j.in); msg != "" {
				r.problems = append(r.problems, msg)
			}
		}
	}
	return r.String(m.opts.Worktree)
}

// problem returns the failure of in, once per failure, or "".
func (m *Manager) problem(in *instance) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if in.state == Running && in.client != nil && !in.client.alive() {
		in.state, in.reason, in.reported = Exited, in.client.exitError().Error(), false
		if in.starts > MaxRestarts {
			in.state = Failed
		}
	}
	if (in.state != Exited && in.state != Failed) || in.reported {
		return ""
	}
	in.reported = true
	return failure(in)
}

// report collects what Diagnose found.
type report struct {
	files    []fileReport
	others   map[string]int // new errors per other file
	problems []string
}

type fileReport struct {
	path   string
	server string
	diags  []protocol.Diagnostic
}

// diagnose syncs paths on c and waits for their diagnostics. A server that
// was not running when the change came (warm false) is still loading the
// project, so the first publication may take until the deadline.
func (r *report) diagnose(ctx context.Context, c *client, paths []string, warm bool, begin, deadline time.Time, t Timing) {
	before := c.errorCounts()
	type synced struct {
		path    string
		since   uint64
		version int32
	}
	var done []synced
	for _, p := range paths {
		since, v, err := c.sync(ctx, p)
		if err != nil {
			continue
		}
		done = append(done, synced{p, since, v})
	}
	first := deadline
	if warm {
		first = time.Now().Add(t.First)
	}
	changed := map[uri.URI]bool{}
	for _, s := range done {
		u := uri.File(s.path)
		changed[u] = true
		if !c.waitFor(ctx, u, s.since, s.version, first, deadline, t.Quiet) {
			continue
		}
		var keep []protocol.Diagnostic
		for _, d := range c.diagnostics(u) {
			if isError(d) || (c.server.Warnings && d.Severity == protocol.DiagnosticSeverityWarning) {
				keep = append(keep, d)
			}
		}
		if len(keep) > 0 {
			r.files = append(r.files, fileReport{path: s.path, server: c.server.Name, diags: keep})
		}
	}
	for u, n := range c.errorCounts() {
		if changed[u] || n <= before[u] {
			continue
		}
		if r.others == nil {
			r.others = map[string]int{}
		}
		r.others[u.Filename()] += n - before[u]
	}
}

// String renders the report: a <diagnostics> block per file with errors,
// one for the other files, and the servers' problems.
func (r *report) String(worktree string) string {
	var b strings.Builder
	rel := func(p string) string { return relPath(worktree, p) }
	for _, f := range r.files {
		diags := sortDiagnostics(f.diags)
		fmt.Fprintf(&b, "<diagnostics file=%q server=%q>\n", rel(f.path), f.server)
		for i, d := range diags {
			if i == MaxFileDiagnostics {
				fmt.Fprintf(&b, "... and %d more\n", len(diags)-i)
				break
			}
			sev := "error"
			if !isError(d) {
				sev = "warning"
			}
			msg := strings.ReplaceAll(strings.TrimSpace(d.Message), "\n", " ")
			fmt.Fprintf(&b, "%d:%d %s: %s\n", d.Range.Start.Line+1, d.Range.Start.Character+1, sev, msg)
		}
		b.WriteString("</diagnostics>\n")
	}
	if len(r.others) > 0 {
		files := make([]string, 0, len(r.others))
		total := 0
		for p, n := range r.others {
			files = append(files, fmt.Sprintf("%s (%d)", rel(p), n))
			total += n
		}
		slices.Sort(files)
		fmt.Fprintf(&b, "<diagnostics other_files>\n%d new %s in other files: %s\n</diagnostics>\n",
			total, plural(total, "error", "errors"), strings.Join(files, ", "))
	}
	for _, p := range r.problems {
		b.WriteString(p + "\n")
	}
	return strings.TrimSpace(b.String())
}

// sortDiagnostics orders diagnostics by position and drops repeats.
func sortDiagnostics(ds []protocol.Diagnostic) []protocol.Diagnostic {
	ds = slices.Clone(ds)
	slices.SortStableFunc(ds, func(a, b protocol.Diagnostic) int {
		return cmp.Or(
			cmp.Compare(a.Range.Start.Line, b.Range.Start.Line),
			cmp.Compare(a.Range.Start.Character, b.Range.Start.Character),
			cmp.Compare(a.Message, b.Message))
	})
	return slices.CompactFunc(ds, func(a, b protocol.Diagnostic) bool {
		return a.Range.Start == b.Range.Start && a.Message == b.Message && a.Severity == b.Severity
	})
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Check opens path (absolute) on the servers that serve it, waits up to
// wait for their diagnostics and returns every one of them, of any
// severity, one a line as path:line:column: severity: message (server).
func (m *Manager) Check(ctx context.Context, path string, wait time.Duration) (string, error) {
	servers := m.serversFor(path)
	if !m.Enabled() || len(servers) == 0 {
		return "", &NoServerError{Path: path}
	}
	deadline := time.Now().Add(wait)
	rel := relPath(m.opts.Worktree, path)
	var b strings.Builder
	for _, s := range servers {
		in, _ := m.instanceFor(s, path)
		if in == nil {
			continue
		}
		c := m.ready(ctx, in, deadline)
		if c == nil {
			msg := m.problem(in)
			if msg == "" {
				msg = fmt.Sprintf("The %s language server did not start within %s.", s.Name, wait)
			}
			b.WriteString(msg + "\n")
			continue
		}
		since, v, err := c.sync(ctx, path)
		if err != nil {
			return "", fmt.Errorf("reading %s: %w", path, err)
		}
		u := uri.File(path)
		if !c.waitFor(ctx, u, since, v, deadline, deadline, m.opts.Timing.Quiet) {
			fmt.Fprintf(&b, "%s published no diagnostics for %s within %s\n", s.Name, rel, wait)
			continue
		}
		diags := sortDiagnostics(c.diagnostics(u))
		if len(diags) == 0 {
			fmt.Fprintf(&b, "%s: no diagnostics for %s\n", s.Name, rel)
		}
		for _, d := range diags {
			fmt.Fprintf(&b, "%s:%d:%d: %s: %s (%s)\n", rel, d.Range.Start.Line+1, d.Range.Start.Character+1,
				severityName(d.Severity), strings.ReplaceAll(strings.TrimSpace(d.Message), "\n", " "), s.Name)
		}
	}
	return strings.TrimSpace(b.String()), nil
}

// severityName names an LSP severity; none counts as an error.
func severityName(s protocol.DiagnosticSeverity) string {
	switch s {
	case protocol.DiagnosticSeverityWarning:
		return "warning"
	case protocol.DiagnosticSeverityInformation:
		return "info"
	case protocol.DiagnosticSeverityHint:
		return "hint"
	}
	return "error"
}

// relPath is p relative to root when it lies below it, else p.
func relPath(root, p string) string {
	if within(p, root) {
		if r, err := filepath.Rel(root, p); err == nil {
			return filepath.ToSlash(r)
		}
	}
	return p
}
