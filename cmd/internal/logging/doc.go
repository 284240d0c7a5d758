// Package logging builds adsync's zap logger: a console encoder when stderr
// is a terminal, JSON otherwise, and a slog bridge for River.
//
// It owns the logger's construction only: it must not decide what the other
// packages log, and must not add fields of its own that could carry a secret.
package logging
