//go:build race

package main

// raceBuilt says this test binary is built with -race.
const raceBuilt = true
