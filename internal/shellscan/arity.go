package shellscan

import "strings"

// Arity returns the leading tokens of a command that name what it does: the
// program and as many subcommand words as the program is known to take
// ("git commit", "npm run dev", "docker compose up"). The longest known
// prefix of tokens decides; a program not in the table counts as one token.
func Arity(tokens []string) []string {
	if len(tokens) == 0 {
		return nil
	}
	for n := min(len(tokens), maxArityKey); n > 0; n-- {
		if a, ok := arity[strings.Join(tokens[:n], " ")]; ok {
			return tokens[:min(a, len(tokens))]
		}
	}
	return tokens[:1]
}

// AlwaysPattern is the pattern an "always" reply approves for a command
// made of tokens: its Arity prefix followed by " *", which also matches
// the prefix alone.
func AlwaysPattern(tokens []string) string {
	return strings.Join(Arity(tokens), " ") + " *"
}

// maxArityKey is the most words a key of arity has.
const maxArityKey = 2

// arity maps a command prefix to how many tokens name the action. A longer
// key is listed only where its count differs from the shorter one's. Flags
// are not skipped: the count is over the command's words as written.
var arity = map[string]int{
	// Programs whose first word says it all.
	"awk": 1, "basename": 1, "cat": 1, "cd": 1, "chgrp": 1, "chmod": 1,
	"chown": 1, "cp": 1, "curl": 1, "cut": 1, "date": 1, "dd": 1, "df": 1,
	"diff": 1, "dirname": 1, "du": 1, "echo": 1, "env": 1, "export": 1,
	"file": 1, "find": 1, "grep": 1, "gzip": 1, "head": 1, "jq": 1,
	"kill": 1, "killall": 1, "less": 1, "ln": 1, "ls": 1, "mkdir": 1,
	"mv": 1, "nice": 1, "nohup": 1, "printf": 1, "ps": 1, "pwd": 1,
	"readlink": 1, "realpath": 1, "rg": 1, "rm": 1, "rmdir": 1,
	"rsync": 1, "scp": 1, "sed": 1, "sleep": 1, "sort": 1, "source": 1,
	"ssh": 1, "stat": 1, "stdbuf": 1, "sudo": 1, "tail": 1, "tar": 1,
	"tee": 1, "test": 1, "time": 1, "timeout": 1, "touch": 1, "tr": 1,
	"tree": 1, "uniq": 1, "unset": 1, "unzip": 1, "watch": 1, "wc": 1,
	"wget": 1, "which": 1, "xargs": 1, "zip": 1,

	// Version control.
	"git": 2, "git config": 3, "git remote": 3, "git stash": 3,
	"git submodule": 3, "git worktree": 3, "hg": 2, "svn": 2,
	"gh": 3, "glab": 3,

	// JavaScript and TypeScript.
	"npm": 2, "npm exec": 3, "npm init": 3, "npm run": 3, "npm view": 3,
	"pnpm": 2, "pnpm dlx": 3, "pnpm exec": 3, "pnpm run": 3,
	"yarn": 2, "yarn dlx": 3, "yarn run": 3, "yarn workspace": 3,
	"bun": 2, "bun run": 3, "bun x": 3, "deno": 2, "deno task": 3,
	"npx": 2, "bunx": 2, "node": 1, "tsc": 1, "nx": 2, "turbo": 2,
	"ng": 2, "vite": 2, "next": 2, "nvm": 2, "volta": 2, "eslint": 1,
	"prettier": 1, "vitest": 2, "jest": 1,

	// Python.
	"python": 2, "python3": 2, "pip": 2, "pip3": 2, "pipenv": 2,
	"poetry": 2, "uv": 2, "uv pip": 3, "uv run": 3, "uvx": 2,
	"pyenv": 2, "conda": 2, "pytest": 1, "ruff": 2, "mypy": 1,
	"django-admin": 2,

	// Go, Rust, JVM, .NET, Swift, Ruby, PHP, Elixir, Haskell, C and C++.
	"go": 2, "go mod": 3, "go tool": 3, "golangci-lint": 2,
	"cargo": 2, "cargo add": 3, "cargo run": 3, "rustup": 2,
	"rustup toolchain": 3, "mvn": 2, "gradle": 2, "gradlew": 2,
	"sbt": 2, "dotnet": 2, "dotnet add": 3, "dotnet new": 3,
	"swift": 2, "xcodebuild": 2, "bundle": 2, "bundle exec": 3,
	"gem": 2, "rake": 2, "rails": 2, "rbenv": 2, "composer": 2,
	"php": 2, "mix": 2, "stack": 2, "cabal": 2, "make": 2, "cmake": 2,
	"ninja": 2, "bazel": 2, "meson": 2,

	// Containers, clusters and clouds.
	"docker": 2, "docker builder": 3, "docker compose": 3,
	"docker container": 3, "docker image": 3, "docker network": 3,
	"docker volume": 3, "docker-compose": 2, "podman": 2,
	"podman container": 3, "podman image": 3, "kubectl": 2,
	"kubectl config": 3, "kubectl rollout": 3, "kubectl kustomize": 3,
	"helm": 2, "helm repo": 3, "kind": 2, "kind create": 3,
	"minikube": 2, "k9s": 1, "kustomize": 2, "skaffold": 2,
	"terraform": 2, "terraform state": 3, "terraform workspace": 3,
	"tofu": 2, "pulumi": 2, "pulumi stack": 3, "aws": 3, "az": 3,
	"gcloud": 3, "doctl": 3, "eksctl": 2, "eksctl create": 3,
	"flyctl": 2, "fly": 2, "heroku": 2, "vercel": 2, "netlify": 2,
	"firebase": 2, "wrangler": 2, "serverless": 2, "sls": 2,
	"sst": 2, "cdk": 2, "vault": 2, "vault kv": 3, "consul": 2,
	"consul kv": 3, "nomad": 2, "ansible-playbook": 1,

	// Systems and services.
	"systemctl": 2, "journalctl": 1, "service": 3, "brew": 2,
	"apt": 2, "apt-get": 2, "dnf": 2, "yum": 2, "pacman": 2,
	"apk": 2, "snap": 2, "ip": 2, "ip addr": 3, "ip link": 3,
	"ip route": 3, "ufw": 2, "tmux": 2, "screen": 1, "crontab": 1,
	"openssl": 2, "openssl req": 3, "openssl x509": 3,
	"gpg": 2, "ssh-keygen": 1,

	// Databases.
	"psql": 2, "mysql": 2, "sqlite3": 2, "mongosh": 2,
	"redis-cli": 2,
}
