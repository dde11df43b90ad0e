// Package mcp connects codeloop to Model Context Protocol servers: local
// servers run as child processes speaking over stdio, remote servers over
// streamable HTTP with a fallback to the older SSE transport, with OAuth
// where a server asks for it.
//
// A Manager connects every enabled server of the configuration in the
// background and reports each one's status. It exposes the servers' tools as
// tool.Tool values named <server>_<tool>, their prompts as slash commands
// <server>:<prompt>, their resources through two tools and ReadResource, and
// their instructions for the system prompt.
//
// It may import config, paths, bus, tool and permission; the app wiring, the
// session loop (through tool.Tool), the agent's command list and the CLI
// import it.
package mcp
