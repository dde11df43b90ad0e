#!/bin/sh
# pgo.sh regenerates cmd/codeloop/default.pgo, the CPU profile that
# `go build` uses for profile-guided optimisation of codeloop (-pgo=auto
# picks up default.pgo in the main package's directory; goreleaser and CI
# build with it as they are).
#
# The profile is merged from representative work:
#   - the real binary against the fake model (bench scenarios): a run with
#     tools, parallel tools, a 50-step session, a long streamed answer and
#     a 5,000-message resume over Chat Completions, and a run with tools
#     and a long answer over Anthropic Messages;
#   - the terminal interface paging through 10,000 messages
#     (internal/tui BenchmarkPageUpPaged10k);
#   - the server fanning events out to 50 clients
#     (internal/server BenchmarkFanOut).
#
# Run it from anywhere in the module: sh bench/pgo.sh. It takes a few
# minutes; commit the new default.pgo with the code it was measured on.
set -eu
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

go run ./bench -n 2 -scenario edit-and-test,many-tools,steps-50,chatty,long-session -cpuprofile "$out/openai"
go run ./bench -n 2 -wire anthropic -scenario edit-and-test,task-8,chatty -cpuprofile "$out/anthropic"
go test ./internal/tui -run '^$' -bench 'PageUpPaged10k$' -benchtime 300x -cpuprofile "$out/tui.pprof" -o "$out/tui.test"
go test ./internal/server -run '^$' -bench 'FanOut$' -benchtime 20x -cpuprofile "$out/server.pprof" -o "$out/server.test"

# Each bench run also leaves an allocation profile (*.allocs.pprof) and a
# trace; only the CPU profiles are merged.
go tool pprof -proto "$out"/openai/*-[0-9].pprof "$out"/anthropic/*-[0-9].pprof \
	"$out/tui.pprof" "$out/server.pprof" > cmd/codeloop/default.pgo.new
mv cmd/codeloop/default.pgo.new cmd/codeloop/default.pgo
ls -l cmd/codeloop/default.pgo
