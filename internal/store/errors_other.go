//go:build !unix

package store

// diagnoseIO says why writing the database failed with an I/O error.
func diagnoseIO(string) string {
	return "an input/output error: the disk may be full or failing"
}
