package pgstore

import (
	"bytes"
	"testing"
)

// A read of at most max bytes of a log reads the chunks holding them, not
// every chunk after them: the API's log route takes a long log (up to the
// 1 GiB cap) a MiB at a time, and each answer reading the rest of the log
// would read it over and over. A control without the bound sees the rest
// read, so the measurement can tell.
func TestABoundedLogReadReadsOnlyTheChunksItWrites(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "bounded", 1)
	l, _ := s.started(t, s.newWorker(t, "w1", nil, 1))
	// A hundred chunks of ten bytes: chunk g holds g padded with dots.
	if _, err := s.super.Exec(t.Context(), `INSERT INTO qinglong.run_log_chunks (attempt_id, log_offset, bytes, created_at_ms)
		SELECT $1, g * 10, convert_to(lpad(g::text, 10, '.'), 'UTF8'), 0 FROM generate_series(0, 99) g`, l.AttemptID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.super.Exec(t.Context(), `UPDATE qinglong.attempts SET log_bytes = 1000 WHERE id = $1`, l.AttemptID); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if next, _, err := s.runtime.ReadAttemptLogUpTo(t.Context(), l.AttemptID, 205, 20, &out); err != nil || next != 225 || out.String() != "...20........21....." {
		t.Fatalf("20 bytes from 205: %q next %d err %v; want the end of chunk 20, chunk 21 and the start of chunk 22, next 225", out.String(), next, err)
	}
	tx, rollback := s.runtimeTx(t)
	defer rollback()
	for _, c := range []struct {
		end  any
		most int
	}{{int64(225), 3}, {nil, 1000}} {
		top, plan := explainPlan(t, tx, "log chunks", "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "+sqlLogChunksFrom, l.AttemptID, int64(205), c.end)
		// The scan of the chunks it returns; the one finding the chunk that
		// holds the start is the same for both.
		if top.Relation != "run_log_chunks" {
			t.Fatalf("the read's plan does not scan the chunks at its top:\n%s", plan)
		}
		read := int(top.ActualRows*top.ActualLoops) + int(top.RemovedByFilter)
		switch {
		case c.end != nil && read > c.most:
			t.Errorf("a read up to %v read %d chunk rows; want at most %d (the three chunks it writes); plan:\n%s", c.end, read, c.most, plan)
		case c.end == nil && read < 80:
			t.Errorf("an unbounded read from 205 read %d chunk rows; want the 80 from chunk 20 on, or the measurement cannot tell; plan:\n%s", read, plan)
		}
	}
}
