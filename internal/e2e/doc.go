// Package e2e holds end-to-end tests: they build the codeloop binary and
// run it against a local fake model server (internal/fakellm) in temporary
// git repositories. It has no code of its own; nothing imports it.
package e2e
