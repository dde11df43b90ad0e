// Package session runs conversations with a model: session and message
// storage (CRUD, fork, export and import), the loop that answers a prompt
// step by step, the stream processor that turns a model's events into
// stored parts and runs its tool calls, retries, aborts, titles, and the
// compaction that keeps a long session inside the context window.
//
// The loop reaches models, agents, tools, permissions and the system prompt
// through the small interfaces in deps.go, so the application wires in the
// real ones and tests script them.
//
// It imports bus, id, llm, message, permission, store and tool; the
// application layer (internal/app) and the front ends import it.
package session
