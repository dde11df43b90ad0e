package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// StatsFilter selects what Stats adds up. Zero fields select everything.
type StatsFilter struct {
	ProjectID string // sessions of this project only
	Since     int64  // messages and sessions created at or after this Unix millisecond
}

// Usage is what a group of assistant messages cost.
type Usage struct {
	Key        string  `json:"key"` // the model, day or agent; empty for the total
	Messages   int64   `json:"messages"`
	Cost       float64 `json:"cost"`
	Input      int64   `json:"input"`
	Output     int64   `json:"output"`
	Reasoning  int64   `json:"reasoning"`
	CacheRead  int64   `json:"cacheRead"`
	CacheWrite int64   `json:"cacheWrite"`
	// CacheReadShare is the share of input tokens (uncached, cache read
	// and cache written) that were cache reads, 0 to 1.
	CacheReadShare float64 `json:"cacheReadShare"`
}

// ReadShare returns the share of u's input tokens that were read from the
// prompt cache, 0 when there were none.
func (u Usage) ReadShare() float64 {
	all := u.Input + u.CacheRead + u.CacheWrite
	if all <= 0 {
		return 0
	}
	return float64(u.CacheRead) / float64(all)
}

// ToolCount is how often a tool was called.
type ToolCount struct {
	Tool  string `json:"tool"`
	Calls int64  `json:"calls"`
}

// Stats is usage added up over sessions.
type Stats struct {
	Sessions int64       `json:"sessions"`
	Messages int64       `json:"messages"`
	Total    Usage       `json:"total"`
	ByModel  []Usage     `json:"byModel"`
	ByDay    []Usage     `json:"byDay"` // Key is YYYY-MM-DD in local time, oldest first
	ByAgent  []Usage     `json:"byAgent"`
	Tools    []ToolCount `json:"tools"` // most called first
}

// dayBucket is the width of the time buckets Stats groups by before it
// assigns them to local days: every time zone's offset is a multiple of it.
const dayBucket = 15 * 60 * 1000

// Stats adds up the sessions, messages, tokens, cost and tool calls f
// selects, from the indexed usage tables (no message is decoded): one pass
// over the messages groups them by role, model, agent and quarter hour,
// and the groups are added up by model, local day and agent.
func (q q) Stats(ctx context.Context, f StatsFilter) (Stats, error) {
	var st Stats
	in, args := "", []any{f.Since}
	if f.ProjectID != "" {
		in, args = ` AND session_id IN (SELECT id FROM session WHERE project_id = ?)`, append(args, f.ProjectID)
	}
	sessWhere := "time_created >= ?"
	if f.ProjectID != "" {
		sessWhere += " AND project_id = ?"
	}
	if err := q.ex.QueryRowContext(ctx, `SELECT count(*) FROM session WHERE `+sessWhere, args...).Scan(&st.Sessions); err != nil {
		return st, fmt.Errorf("counting sessions: %w", err)
	}
	rows, err := q.ex.QueryContext(ctx, `SELECT role = 'assistant', provider_id || '/' || model_id, agent, time_created / ?,
		count(*), sum(cost), sum(tokens_input), sum(tokens_output), sum(tokens_reasoning), sum(tokens_cache_read), sum(tokens_cache_write)
		FROM message_meta WHERE time_created >= ?`+in+` GROUP BY 1, 2, 3, 4`, append([]any{dayBucket}, args...)...)
	if err != nil {
		return st, fmt.Errorf("adding up usage: %w", err)
	}
	defer rows.Close()
	byModel, byDay, byAgent := map[string]*Usage{}, map[string]*Usage{}, map[string]*Usage{}
	add := func(m map[string]*Usage, key string, u Usage) {
		t := m[key]
		if t == nil {
			t = &Usage{Key: key}
			m[key] = t
		}
		t.add(u)
	}
	for rows.Next() {
		var assistant bool
		var model, agent string
		var bucket int64
		var u Usage
		if err := rows.Scan(&assistant, &model, &agent, &bucket, &u.Messages, &u.Cost, &u.Input, &u.Output, &u.Reasoning,
			&u.CacheRead, &u.CacheWrite); err != nil {
			return st, fmt.Errorf("adding up usage: %w", err)
		}
		st.Messages += u.Messages
		if !assistant {
			continue
		}
		st.Total.add(u)
		add(byModel, model, u)
		add(byDay, time.UnixMilli(bucket*dayBucket).Format(time.DateOnly), u)
		add(byAgent, agent, u)
	}
	if err := rows.Err(); err != nil {
		return st, fmt.Errorf("adding up usage: %w", err)
	}
	st.ByModel, st.ByDay, st.ByAgent = sorted(byModel, false), sorted(byDay, true), sorted(byAgent, false)
	st.Total.CacheReadShare = st.Total.ReadShare()
	for _, g := range [][]Usage{st.ByModel, st.ByDay, st.ByAgent} {
		for i := range g {
			g[i].CacheReadShare = g[i].ReadShare()
		}
	}

	tw := "time_created >= ?"
	if f.ProjectID != "" {
		tw += " AND session_id IN (SELECT id FROM session WHERE project_id = ?)"
	}
	trows, err := q.ex.QueryContext(ctx, `SELECT tool, count(*) FROM tool_use WHERE `+tw+` GROUP BY tool ORDER BY 2 DESC, 1`, args...)
	if err != nil {
		return st, fmt.Errorf("counting tool calls: %w", err)
	}
	defer trows.Close()
	for trows.Next() {
		var tc ToolCount
		if err := trows.Scan(&tc.Tool, &tc.Calls); err != nil {
			return st, fmt.Errorf("counting tool calls: %w", err)
		}
		st.Tools = append(st.Tools, tc)
	}
	return st, trows.Err()
}

func (u *Usage) add(v Usage) {
	u.Messages += v.Messages
	u.Cost += v.Cost
	u.Input += v.Input
	u.Output += v.Output
	u.Reasoning += v.Reasoning
	u.CacheRead += v.CacheRead
	u.CacheWrite += v.CacheWrite
}

// sorted returns the groups by key (byKey) or by input tokens, most
// first.
func sorted(m map[string]*Usage, byKey bool) []Usage {
	out := make([]Usage, 0, len(m))
	for _, u := range m {
		out = append(out, *u)
	}
	slices.SortFunc(out, func(a, b Usage) int {
		if !byKey && a.Input != b.Input {
			return cmp.Compare(b.Input, a.Input)
		}
		return strings.Compare(a.Key, b.Key)
	})
	return out
}

// Size describes the database's size and what could be reclaimed.
type Size struct {
	Path        string `json:"path"`
	FileBytes   int64  `json:"fileBytes"`   // pages in the database file
	FreeBytes   int64  `json:"freeBytes"`   // free pages, reclaimed by VACUUM
	Sessions    int64  `json:"sessions"`    // every session, children too
	Messages    int64  `json:"messages"`    // every message
	Parts       int64  `json:"parts"`       // every part
	MessageData int64  `json:"messageData"` // bytes of message JSON
	PartData    int64  `json:"partData"`    // bytes of part JSON
}

// Size measures the database.
func (s *Store) Size(ctx context.Context) (Size, error) {
	sz := Size{Path: s.path}
	var pages, free, pageSize int64
	for _, p := range []struct {
		pragma string
		dst    *int64
	}{{"page_count", &pages}, {"freelist_count", &free}, {"page_size", &pageSize}} {
		if err := s.db.QueryRowContext(ctx, "PRAGMA "+p.pragma).Scan(p.dst); err != nil {
			return sz, fmt.Errorf("reading %s: %w", p.pragma, err)
		}
	}
	sz.FileBytes, sz.FreeBytes = pages*pageSize, free*pageSize
	err := s.db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM session), (SELECT count(*) FROM message), (SELECT count(*) FROM part),
		(SELECT COALESCE(sum(length(data)), 0) FROM message), (SELECT COALESCE(sum(length(data)), 0) FROM part)`).
		Scan(&sz.Sessions, &sz.Messages, &sz.Parts, &sz.MessageData, &sz.PartData)
	if err != nil {
		return sz, fmt.Errorf("counting rows: %w", err)
	}
	return sz, nil
}

// SessionsBefore returns the ids of the sessions without a parent whose
// last update is older than the Unix millisecond before, oldest first; a
// non-empty projectID selects that project's only.
func (q q) SessionsBefore(ctx context.Context, projectID string, before int64) ([]string, error) {
	query, args := `SELECT id FROM session WHERE parent_id = '' AND time_updated < ?`, []any{before}
	if projectID != "" {
		query, args = query+` AND project_id = ?`, append(args, projectID)
	}
	rows, err := q.ex.QueryContext(ctx, query+` ORDER BY time_updated`, args...)
	if err != nil {
		return nil, fmt.Errorf("listing old sessions: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("listing old sessions: %w", err)
		}
		out = append(out, id)
	}
	return out, rows.Err()
}
