package tool

import (
	"embed"
	"strings"
)

//go:embed desc/*.txt
var descriptions embed.FS

// describe returns the embedded description of the tool with this id.
func describe(id string) string {
	b, err := descriptions.ReadFile("desc/" + id + ".txt")
	if err != nil {
		panic("tool: no description for " + id)
	}
	return strings.TrimSpace(string(b))
}
