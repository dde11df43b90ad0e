// Package shellscan analyses shell text into the programs it would run:
// the simple commands, with those that wrappers, launchers, multiplexers,
// package managers and interpreters start, the file paths they name, and
// why a text cannot be analysed when what it runs is only known at run
// time. Its patterns are what the "bash" permission rules match.
//
// It depends on mvdan.cc/sh and the standard library only.
package shellscan
