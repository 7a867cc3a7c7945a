//go:build race

package engine_test

// raceEnabled says this test binary was built with -race.
const raceEnabled = true
