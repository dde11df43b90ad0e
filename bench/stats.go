package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// summary is a scenario's runs reduced to median, minimum and maximum per
// metric.
type summary struct {
	name    string
	runs    int
	server  bool
	metrics []metric
}

// metric is one column of the table.
type metric struct {
	name          string
	med, min, max float64
	format        func(float64) string
}

func (m metric) String() string {
	if m.min == m.max {
		return m.format(m.med)
	}
	return fmt.Sprintf("%s [%s–%s]", m.format(m.med), m.format(m.min), m.format(m.max))
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func newMetric(name string, v []float64, format func(float64) string) metric {
	return metric{name: name, med: median(v), min: slices.Min(v), max: slices.Max(v), format: format}
}

func fmtDuration(v float64) string {
	d := time.Duration(v)
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2fs", d.Seconds())
	case d >= 10*time.Millisecond:
		return fmt.Sprintf("%.0fms", float64(d)/1e6)
	default:
		return fmt.Sprintf("%.1fms", float64(d)/1e6)
	}
}

func fmtShare(v float64) string {
	if v < 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*v)
}

func fmtTokens(v float64) string { return fmt.Sprintf("%.1fk", v/1e3) }

func fmtMB(v float64) string  { return fmt.Sprintf("%.1fMB", v/1e6) }
func fmtInt(v float64) string { return fmt.Sprintf("%.0f", v) }
func fmtKB(v float64) string  { return fmt.Sprintf("%.1fKB", v/1e3) }

func summarize(name string, runs []result) summary {
	col := func(f func(result) float64) []float64 {
		out := make([]float64, len(runs))
		for i, r := range runs {
			out[i] = f(r)
		}
		return out
	}
	s := summary{name: name, runs: len(runs), server: runs[0].hasServer}
	s.metrics = []metric{
		newMetric("wall", col(func(r result) float64 { return float64(r.wall) }), fmtDuration),
		newMetric("cpu", col(func(r result) float64 { return float64(r.cpu) }), fmtDuration),
		newMetric("rss", col(func(r result) float64 { return float64(r.maxRSS) }), fmtMB),
		newMetric("anon", col(func(r result) float64 { return float64(r.maxAnon) }), fmtMB),
	}
	if s.server {
		s.metrics = append(s.metrics,
			newMetric("requests", col(func(r result) float64 { return float64(r.requests) }), fmtInt),
			newMetric("titles", col(func(r result) float64 { return float64(r.titles) }), fmtInt),
			newMetric("system/req", col(func(r result) float64 { return float64(r.system) }), fmtKB),
			newMetric("tools/req", col(func(r result) float64 { return float64(r.tools) }), fmtKB),
			newMetric("max body", col(func(r result) float64 { return float64(r.body) }), fmtKB),
			newMetric("start→1st req", col(func(r result) float64 { return float64(r.firstReq) }), fmtDuration),
			newMetric("agent gap", col(func(r result) float64 { return float64(r.gap) }), fmtDuration),
			newMetric("gap incl. tools", col(func(r result) float64 { return float64(r.gapRaw) }), fmtDuration),
			newMetric("cache read", col(func(r result) float64 { return r.cacheShare }), fmtShare),
			newMetric("input cost", col(func(r result) float64 { return r.inputCost }), fmtTokens),
		)
	}
	return s
}

// printTable prints one row per scenario and one column per metric, each
// cell the median with the range in brackets.
func printTable(w io.Writer, results []summary) {
	names := []string{"scenario", "runs"}
	for _, s := range results {
		if s.server {
			for _, m := range s.metrics {
				names = append(names, m.name)
			}
			break
		}
	}
	if len(names) == 2 && len(results) > 0 {
		for _, m := range results[0].metrics {
			names = append(names, m.name)
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(names, "\t"))
	for _, s := range results {
		cells := []string{s.name, fmt.Sprint(s.runs)}
		for _, m := range s.metrics {
			cells = append(cells, m.String())
		}
		for len(cells) < len(names) {
			cells = append(cells, "-")
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	_ = tw.Flush()
	fmt.Fprintln(w, "median [min–max]; cpu is user+sys of codeloop and every process it ran; rss is the peak of the largest of them;")
	fmt.Fprintln(w, "anon is codeloop's own peak RssAnon (heap, stacks, runtime; sampled every millisecond from /proc/<pid>/status);")
	fmt.Fprintln(w, "cache read is the share of input tokens read from the prompt cache from the second request on; input cost weighs")
	fmt.Fprintln(w, "the run's input tokens as billed (cache reads 0.1, writes 1.25, the rest 1), as internal/fakellm's cache accounting counts them;")
	fmt.Fprintln(w, "agent gap is the longest time from the end of a model response to the next request, less the time tools ran.")
}
