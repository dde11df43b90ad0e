package github

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Env is what a GitHub Actions run tells codeloop through its environment.
type Env struct {
	EventName  string // GITHUB_EVENT_NAME
	EventPath  string // GITHUB_EVENT_PATH
	Repository string // GITHUB_REPOSITORY, owner/name
	APIURL     string // GITHUB_API_URL
	ServerURL  string // GITHUB_SERVER_URL
	Token      string // --token, else INPUT_TOKEN, else GITHUB_TOKEN
	Workspace  string // GITHUB_WORKSPACE
	RunID      string // GITHUB_RUN_ID
	RunnerTemp string // RUNNER_TEMP
}

// LoadEnv reads the run's environment through getenv; token, when not
// empty, is the --token flag and wins over the variables. It reports the
// first variable that is missing or malformed.
func LoadEnv(getenv func(string) string, token string) (Env, error) {
	e := Env{
		EventName:  getenv("GITHUB_EVENT_NAME"),
		EventPath:  getenv("GITHUB_EVENT_PATH"),
		Repository: getenv("GITHUB_REPOSITORY"),
		APIURL:     getenv("GITHUB_API_URL"),
		ServerURL:  getenv("GITHUB_SERVER_URL"),
		Token:      token,
		Workspace:  getenv("GITHUB_WORKSPACE"),
		RunID:      getenv("GITHUB_RUN_ID"),
		RunnerTemp: getenv("RUNNER_TEMP"),
	}
	if e.Token == "" {
		e.Token = getenv("INPUT_TOKEN")
	}
	if e.Token == "" {
		e.Token = getenv("GITHUB_TOKEN")
	}
	if e.APIURL == "" {
		e.APIURL = "https://api.github.com"
	}
	if e.ServerURL == "" {
		e.ServerURL = "https://github.com"
	}
	for _, v := range []struct{ name, value string }{
		{"GITHUB_EVENT_NAME", e.EventName},
		{"GITHUB_EVENT_PATH", e.EventPath},
		{"GITHUB_REPOSITORY", e.Repository},
	} {
		if v.value == "" {
			return e, fmt.Errorf("%s is not set: codeloop github run runs inside a GitHub Actions job", v.name)
		}
	}
	if e.Token == "" {
		return e, errors.New("no GitHub token: pass GITHUB_TOKEN (secrets.GITHUB_TOKEN) in the step's env, or --token")
	}
	if strings.ContainsAny(e.Token, " \t\r\n") {
		return e, errors.New("the GitHub token holds white space")
	}
	if o, n, ok := strings.Cut(e.Repository, "/"); !ok || o == "" || n == "" || strings.Contains(n, "/") {
		return e, fmt.Errorf("GITHUB_REPOSITORY %q: want owner/name", e.Repository)
	}
	if e.RunID != "" {
		if _, err := strconv.ParseInt(e.RunID, 10, 64); err != nil {
			return e, fmt.Errorf("GITHUB_RUN_ID %q is not a number", e.RunID)
		}
	}
	return e, nil
}

// Owner is the repository's owner.
func (e Env) Owner() string { o, _, _ := strings.Cut(e.Repository, "/"); return o }

// Repo is the repository's name.
func (e Env) Repo() string { _, n, _ := strings.Cut(e.Repository, "/"); return n }

// RunURL is the address of the Actions run, or empty when the run id is
// unknown.
func (e Env) RunURL() string {
	if e.RunID == "" {
		return ""
	}
	return strings.TrimRight(e.ServerURL, "/") + "/" + e.Repository + "/actions/runs/" + e.RunID
}

// secretSuffixes end the names of provider keys and other credentials.
func secretSuffixes() []string {
	return []string{"_API_KEY", "_APIKEY", "_KEY", "_TOKEN", "_SECRET", "_PASSWORD", "_CREDENTIALS", "_PAT"}
}

// IsSecret reports whether the environment variable name holds a
// credential that the commands the model runs must not see: the GitHub
// token, the Actions runtime tokens and anything named like a key, token,
// secret or password.
func IsSecret(name string) bool {
	n := strings.ToUpper(name)
	if RunnerCredential(n) {
		return true
	}
	switch n {
	case "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "GOOGLE_APPLICATION_CREDENTIALS":
		return true
	}
	for _, s := range secretSuffixes() {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	return false
}

// RunnerCredential reports whether the environment variable name holds the
// GitHub token or one of the Actions runtime's: only the runner's own API
// calls and pushes use them. The engine must not see them either, or a
// provider that reads GITHUB_TOKEN (GitHub Models, Copilot) would send the
// job's token to a model.
func RunnerCredential(name string) bool {
	switch strings.ToUpper(name) {
	case "GITHUB_TOKEN", "GH_TOKEN", "INPUT_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN",
		"ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_URL":
		return true
	}
	return false
}

// withoutFlags returns args without the flags named and their values,
// which it records in kept under the flag's name. Arguments after "--"
// are no flags.
func withoutFlags(args, flags []string, kept map[string]string) []string {
	if len(flags) == 0 {
		return args
	}
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		matched := false
		for _, f := range flags {
			switch {
			case a == f && i+1 < len(args):
				kept[f] = args[i+1]
				i++
				matched = true
			case strings.HasPrefix(a, f+"="):
				kept[f] = strings.TrimPrefix(a, f+"=")
				matched = true
			}
		}
		if !matched {
			out = append(out, a)
		}
	}
	return out
}
