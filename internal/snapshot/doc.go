// Package snapshot keeps what a session's steps did to the files of a
// project, so that any step can be taken back and the taking back undone.
//
// The store lives under the data directory and needs no git. File contents
// are cut into content-defined chunks, each kept once, compressed with zstd
// and named by the sha256 of its bytes; a file of several chunks has a list
// object naming them. A one-line edit in a large file therefore adds one or
// two chunks and a list, not a copy of the file. Every object is written to
// a temporary file and renamed, so a crash never leaves a torn object.
//
// A checkpoint is one step: for every file the step changed, the entry
// before the step (or absent) and after it. The pre-images of files that
// codeloop's own tools change are kept before they change. For tools that
// can change anything (bash, MCP tools), the project's stat index is
// brought up to date before the first such call and after the step: the
// index is the live tree of the project (every file's stat and, once
// read, its kept content), walked once per process and then kept up to
// date by a change watcher, so only files whose size, times or inode
// changed are read again. From the scan before the call, the first change
// of each file is logged with its state before, and the step compares the
// logged files only: its cost is what changed, not the size of the tree.
// Between runs a keeper process (Options.Keeper) holds the change watcher,
// so a run starts from what changed meanwhile instead of walking the
// project (keep.go).
// Large files, ignored paths and directories of very many new entries are
// skipped and reported.
//
// The store is bounded: checkpoints per session, a retention period and a
// total size, enforced by a mark-and-sweep collection that drops the oldest
// checkpoints first.
package snapshot
