package config

import (
	"reflect"
	"testing"
)

// TestLoadSecretFilesConcatenated checks that secret_files concatenate
// across layers, and that the project's exemptions are dropped whether or
// not it is trusted.
func TestLoadSecretFilesConcatenated(t *testing.T) {
	t.Parallel()
	tr := newTree(t, true)
	tr.write(t, map[string]string{
		"home/.config/codeloop/codeloop.json": `{"secret_files": ["config/prod.yml", "!.env.local"]}`,
		"proj/codeloop.json":                  `{"secret_files": ["*.p12", "!*.pem"]}`,
	})
	got, err := tr.load(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"config/prod.yml", "!.env.local", "*.p12"}
	for _, c := range []*Config{got.Guarded, got.Trusted} {
		if !reflect.DeepEqual(c.SecretFiles, want) {
			t.Errorf("secret_files = %v, want %v", c.SecretFiles, want)
		}
	}
}
