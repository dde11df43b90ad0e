package main

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The search scenario: a search of a whole session of n messages, of
// which the view holds a few pages.
const searchQuery = "Answer 1" // in Answers 1, 10–19, 100–199, …

// searchResult is what one search run measured.
type searchResult struct {
	messages int
	keys     []time.Duration // each key of the query to the frame that shows it
	scan     time.Duration   // the query's last key to the bar's count of every match
	total    int             // the matches the bar counted
	oldest   time.Duration   // N from the newest match round to the oldest, to its frame
	newest   time.Duration   // n from the oldest round to the newest, to its frame
	scanAnon int64           // RssAnon once every match is counted
	peak     int64           // VmHWM at the end
	anon     int64           // RssAnon at the end
}

// barCount reads the count of matches from the search bar: "K of T", or
// "T matches" while none of them is held.
var barCount = regexp.MustCompile(`Find: .*? (?:\d+ of (\d+)|(\d+) matches)`)

// searching opens a session of n messages, types searchQuery into the
// search bar, and times each key to its frame, the search of the whole
// session to its count, and the jumps round both ends of the matches.
func searching(ctx context.Context, bin, dir string, n, w, h int) (searchResult, error) {
	res := searchResult{messages: n}
	o, err := openSeeded(ctx, bin, dir, "tui-search", n, w, h)
	if err != nil {
		return res, err
	}
	defer o.close()
	tm := o.tm
	pid, err := tm.childPID()
	if err != nil {
		return res, err
	}
	time.Sleep(300 * time.Millisecond) // let start-up work settle

	c, err := startControl(tm.socket, "v")
	if err != nil {
		return res, err
	}
	defer c.close()
	if err := c.key("v", "C-f"); err != nil {
		return res, err
	}
	if _, err := tm.waitFor(5*time.Second, func(s string) bool { return strings.Contains(s, "Find:") }); err != nil {
		return res, fmt.Errorf("the search bar never opened: %w", err)
	}
	var last time.Time
	for _, r := range searchQuery {
		k := string(r)
		c.drain()
		t0, err := c.send("v", k)
		if err != nil {
			return res, err
		}
		t1, err := c.waitOutput(k, 2*time.Second)
		if err != nil {
			return res, fmt.Errorf("key %q: %w", k, err)
		}
		res.keys = append(res.keys, t1.Sub(t0))
		last = t0
		time.Sleep(keyInterval)
	}
	screen, err := tm.waitFor(5*time.Minute, func(s string) bool {
		return barCount.MatchString(s) && !strings.Contains(s, "searching")
	})
	if err != nil {
		return res, fmt.Errorf("the search of the session never ended: %w\n%s", err, screen)
	}
	res.scan = time.Since(last)
	res.scanAnon, _ = procStatus(pid, "RssAnon")
	m := barCount.FindStringSubmatch(screen)
	res.total, _ = strconv.Atoi(m[1] + m[2])
	if err := c.key("v", "Enter"); err != nil {
		return res, err
	}
	// jump sends key and waits for the bar to show match want.
	jump := func(key string, want int) (time.Duration, error) {
		t0 := time.Now()
		if err := c.key("v", key); err != nil {
			return 0, err
		}
		mark := fmt.Sprintf(" %d of %d", want, res.total)
		screen, err := tm.waitFor(5*time.Minute, func(s string) bool { return strings.Contains(s, mark) })
		if err != nil {
			return 0, fmt.Errorf("%s never showed match %d of %d: %w\n%s", key, want, res.total, err, screen)
		}
		return time.Since(t0), nil
	}
	if res.oldest, err = jump("N", res.total); err != nil {
		return res, err
	}
	if res.newest, err = jump("n", 1); err != nil {
		return res, err
	}
	res.peak, _ = procStatus(pid, "VmHWM")
	res.anon, _ = procStatus(pid, "RssAnon")
	_ = c.key("v", "Escape")
	_ = c.key("v", "C-c")
	return res, nil
}

// reportSearch prints the search runs.
func reportSearch(results []searchResult, w, h int) {
	fmt.Printf("searching %q in the whole session (%dx%d)\n", searchQuery, w, h)
	fmt.Println("| messages | matches | key to frame p50 / p95 | last key to the count of all | RssAnon then | N round to the oldest | n round to the newest | peak RSS | RssAnon at the end |")
	fmt.Println("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
	for _, r := range results {
		fmt.Printf("| %d | %d | %s / %s | %s | %s | %s | %s | %s | %s |\n", r.messages, r.total,
			ms(quantile(r.keys, 0.5)), ms(quantile(r.keys, 0.95)), ms(r.scan), mb(r.scanAnon), ms(r.oldest), ms(r.newest), mb(r.peak), mb(r.anon))
	}
}
