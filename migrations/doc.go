// Package migrations brings a database to adsync's schema: River's own
// tables through rivermigrate, then the app's embedded SQL files, both under
// one Postgres advisory lock so any number of processes may migrate at once.
//
// It owns the app's schema and its numbered SQL files. It must not change a
// file already released (a change is a new numbered file), and must not touch
// River's tables except through rivermigrate.
package migrations
