// Package outfile writes adsync's outputs without destroying what their
// paths hold. Create writes to a path a user named (audience hash's --out,
// the fake's state files): a regular file is replaced atomically and keeps
// its mode and owner, anything else (/dev/null, /dev/stdout, a FIFO, process
// substitution) is written to, never replaced. Place publishes a finished
// file into a folder adsync owns (the export's), never replacing anything
// already there.
//
// It owns how a file reaches its final name; it must not decide what goes
// in it, hold state between calls, or remove anything it did not create
// (a path that is not a regular file is never replaced or removed).
package outfile
