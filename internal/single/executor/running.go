package executor

import (
	"maps"
	"slices"
)

// Running is the ids of the attempts whose commands run now, sorted
// (oldest first, ids being time-ordered): what a stop still waits for.
func (d *Dispatcher) Running() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Sorted(maps.Keys(d.running))
}
