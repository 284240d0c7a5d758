// Package adsynccmd is adsync's command layer: it parses flags, builds the
// pieces and delegates. Behaviour lives in the packages it calls.
//
// It owns the command tree (names, flags, help, exit codes) and what a command
// prints. It must not hold business logic or SQL: a command parses its flags
// and calls one function of the package that does the work, and keeps the
// public command names, flags and environment variables.
package adsynccmd
