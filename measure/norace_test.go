//go:build !race

package measure

// raceEnabled tells tests that the race detector is on.
const raceEnabled = false
