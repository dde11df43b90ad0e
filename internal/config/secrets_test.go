package config

import (
	"reflect"
	"testing"
)

func TestLoadSecretFilesConcatenated(t *testing.T) {
	tr := newTree(t, true)
	tr.write(t, map[string]string{
		"home/.config/codeloop/codeloop.json": `{"secret_files": ["config/prod.yml", "!.env.local"]}`,
		"proj/codeloop.json":                  `{"secret_files": ["*.p12", "!*.pem"]}`,
	})
	got, err := tr.load(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"config/prod.yml", "!.env.local", "*.p12", "!*.pem"}
	if !reflect.DeepEqual(got.Config.SecretFiles, want) {
		t.Errorf("secret_files = %v, want %v", got.Config.SecretFiles, want)
	}
}
