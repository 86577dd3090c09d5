package ids

import (
	"testing"
	"time"
)

// The ids minted at a millisecond sort at or after FloorAt of it and before
// FloorAt of the next one, and TimeOf reads that millisecond back.
func TestFloorAtBoundsTheIdsOfItsMillisecond(t *testing.T) {
	for range 200 {
		before := time.Now().UnixMilli()
		id := New()
		after := time.Now().UnixMilli()
		ms, err := TimeOf(id)
		if err != nil || ms < before || ms > after {
			t.Fatalf("TimeOf(%s) = %d, %v; minted within [%d, %d]", id, ms, err, before, after)
		}
		if lo, hi := FloorAt(ms), FloorAt(ms+1); !(lo <= id && id < hi) || Validate("floor", lo) != nil {
			t.Fatalf("%s is not within [%s, %s)", id, lo, hi)
		}
	}
	if _, err := TimeOf("0190a4f2-0000-4000-8000-000000000000"); err == nil {
		t.Fatal("TimeOf accepted a version 4 UUID")
	}
}
