package sqlitestore

import (
	"context"
	"testing"
)

const pragmaSynchronousSQL = `PRAGMA synchronous`

func (e *env) writerSync(t *testing.T) int {
	t.Helper()
	var level int
	if err := e.store.writer.QueryRow(pragmaSynchronousSQL).Scan(&level); err != nil {
		t.Fatal(err)
	}
	return level
}

// A durable write commits at synchronous=FULL (2) and leaves the writer at
// NORMAL (1) for routine commits; a routine write never switches.
func TestDurableWritesCommitAtFullAndRoutineOnesAtNormal(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if got := e.writerSync(t); got != 1 {
		t.Fatalf("writer starts at synchronous=%d, want NORMAL (1)", got)
	}
	for _, c := range []struct {
		d    durability
		want int
	}{{durable, 2}, {routine, 1}} {
		var inside int
		err := e.store.withWriter(context.Background(), c.d, func() error {
			return e.store.writer.QueryRow(pragmaSynchronousSQL).Scan(&inside)
		})
		if err != nil || inside != c.want {
			t.Fatalf("durability %v: synchronous=%d inside (%v), want %d", c.d, inside, err, c.want)
		}
		if after := e.writerSync(t); after != 1 {
			t.Fatalf("durability %v left the writer at synchronous=%d", c.d, after)
		}
	}
}
