// Package adsynccmd is adsync's command layer: it parses flags, builds the
// pieces and delegates. Behaviour lives in the packages it calls.
//
// It owns the command tree (names, flags, help, exit codes) and the
// streams a command writes to: the packages it calls write their reports
// there. It must not hold business logic or SQL: a command parses its
// flags into options and calls one function of the package that does the
// work (jobs.Local for the commands that queue jobs, jobs.Local.Pass for
// adsync run), asks cmd/internal/demo about the zero-config demo, and
// keeps the public command names, flags and environment variables.
package adsynccmd
