// Package cli provides the xrl command-line interface: one file per
// command, each with an options struct, a constructor that only parses
// flags into it, and a run function that does the work on injected
// streams. Main decides the exit code in one place.
package cli
