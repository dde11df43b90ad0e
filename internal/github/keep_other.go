//go:build !unix

package github

import (
	"os"
	"strings"
)

// KeepSecrets takes the credentials (IsSecret) out of the process's
// environment and returns them for codeloop's own use, with the values of
// the command-line flags named under the flag's name.
func KeepSecrets(flags ...string) (map[string]string, error) {
	kept := map[string]string{}
	withoutFlags(os.Args, flags, kept)
	for _, kv := range os.Environ() {
		name, value, _ := strings.Cut(kv, "=")
		if IsSecret(name) {
			kept[name] = value
			if err := os.Unsetenv(name); err != nil {
				return nil, err
			}
		}
	}
	return kept, nil
}
