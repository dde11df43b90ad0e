package snapshot

import (
	"context"
	"slices"
	"strings"
)

// compare brings the tree up to date after a step that ran a shell or MCP
// tool and puts in after what changed since the step's mark: each path
// the mark logged, with its content now (nil when deleted). A change
// whose content before or after was not kept is returned as a skip
// instead of recorded, so a revert never deletes or rewrites a file it
// knows only by its stat. It then closes the mark, keeping in st.before
// the pre-images Finish still needs. st.mu is held.
func (s *Store) compare(ctx context.Context, st *step, after map[string]*Entry) ([]Skip, error) {
	ix, pre := st.ix, st.pre
	ix.mu.Lock()
	defer ix.mu.Unlock()
	defer func() {
		ix.closeMark(pre)
		st.pre = nil
	}()
	post, err := s.refresh(ctx, ix, s.opts.MaxSize-s.opts.MaxSize/32, pre) // room for the checkpoint and lists
	if err != nil {
		return nil, err
	}
	var unkept []Skip
	skip := skippedDirs(post)
	for k, was := range pre.log {
		now, ok := ix.files[k]
		switch {
		case !ok && !was.had:
			continue // created and gone again
		case !ok && skip(k):
			continue // in a directory the scan did not read
		case ok && was.had && now.Stat == was.it.Stat && now.big == was.it.big:
			continue // read anew, not changed
		case ok && now.big:
			unkept = append(unkept, Skip{Path: k, Reason: "changed, but larger than 10 MiB: not kept"})
			continue
		case !ok:
			after[k] = nil
		case now.Entry == nil && was.had:
			unkept = append(unkept, Skip{Path: k, Reason: "changed, but its new content was not kept"})
			continue
		case now.Entry == nil:
			unkept = append(unkept, Skip{Path: k, Reason: "created, but not kept"})
			continue
		default:
			after[k] = now.Entry
		}
		if !was.had {
			if _, ok := st.beforeIn(k); !ok {
				st.before[k] = seqEntry{} // did not exist
			}
			continue
		}
		if _, known := st.beforeIn(k); !known {
			delete(after, k)
			unkept = append(unkept, Skip{Path: k, Reason: "changed, but its content before the step was not kept"})
		}
	}
	for _, sk := range pre.skips {
		if !strings.HasSuffix(sk.Path, "/") {
			unkept = append(unkept, sk) // not protected during this step
		}
	}
	for _, sk := range post {
		if strings.HasSuffix(sk.Path, "/") && !slices.Contains(pre.skips, sk) {
			unkept = append(unkept, sk) // a directory that filled during the step
		}
	}
	// Keep what the mark knows of the keys Finish compares, before it
	// closes.
	for k := range after {
		if e, ok := st.beforeIn(k); ok {
			st.before[k] = e
		}
	}
	for k := range st.touched {
		if e, ok := st.beforeIn(k); ok {
			st.before[k] = e
		}
	}
	return unkept, nil
}
