//go:build race

package hashing

// raceEnabled is true in tests built with the race detector, which slows
// libphonenumber's regexps about tenfold: the differential phone test then
// checks a sample.
const raceEnabled = true
