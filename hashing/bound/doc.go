// Package bound is the upper bound a command line gives as a count or as a
// percentage of a whole (N or P%), such as the invalid rows a file may hold
// or the members a replace may delete.
//
// It owns the parsing and checking of such a bound only: it must not know what
// the bounded thing is.
package bound
