package snapshot

import (
	"context"
	"os"
	"path/filepath"
)

// Stats describe the store.
type Stats struct {
	Dir         string `json:"dir"`
	Bytes       int64  `json:"bytes"`
	MaxBytes    int64  `json:"max_bytes"`
	Checkpoints int    `json:"checkpoints"`
	Sessions    int    `json:"sessions"`
	Objects     int    `json:"objects"`
}

// Stats counts what the store holds.
func (s *Store) Stats() Stats {
	st := Stats{Dir: s.dir, Bytes: s.Size(), MaxBytes: s.opts.MaxSize}
	sessions := map[string]bool{}
	for _, cp := range s.checkpoints() {
		st.Checkpoints++
		sessions[cp.session] = true
	}
	st.Sessions = len(sessions)
	dirs, _ := os.ReadDir(filepath.Join(s.dir, "objects"))
	for _, d := range dirs {
		files, _ := os.ReadDir(filepath.Join(s.dir, "objects", d.Name()))
		st.Objects += len(files)
	}
	return st
}

// Problem is something Verify found wrong.
type Problem struct {
	Checkpoint string `json:"checkpoint"`
	File       string `json:"file,omitempty"`
	Err        string `json:"error"`
}

// Verify reads back every entry of every checkpoint and checks it against
// its hash.
func (s *Store) Verify(ctx context.Context) ([]Problem, error) {
	var problems []Problem
	checked := map[string]bool{}
	for _, ref := range s.checkpoints() {
		if err := ctx.Err(); err != nil {
			return problems, err
		}
		cp, err := s.Load(ref.id)
		if err != nil {
			problems = append(problems, Problem{Checkpoint: ref.id, Err: err.Error()})
			continue
		}
		for k, ch := range cp.Files {
			for _, e := range []*Entry{ch.Before, ch.After} {
				if e == nil || checked[e.Hash] {
					continue
				}
				if _, err := s.content(e); err != nil {
					problems = append(problems, Problem{Checkpoint: cp.ID, File: k, Err: err.Error()})
					continue
				}
				checked[e.Hash] = true
			}
		}
	}
	return problems, nil
}
