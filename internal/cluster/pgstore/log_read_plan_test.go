package pgstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
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

// A read of a piece of a long log touches the chunks of that piece and
// no others, wherever the piece is and however its statement is planned:
// the chunk holding its start is found by one descent of the primary key
// (not by reading the chunks before it), and its end bounds the scan
// rather than filtering it, also in a plan made once for every offset and
// end, as a prepared statement's may be (that plan read all 10,000 chunks
// after the start while the end was "$3 IS NULL OR log_offset < $3").
// Measured on an attempt of 10,000 chunks, analyzed, near its start and
// near its end.
func TestAPieceOfALongLogIsReadFromItsOwnChunksOnly(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "long", 1)
	l, _ := s.started(t, s.newWorker(t, "w1", nil, 1))
	const chunks = 10_000
	if _, err := s.super.Exec(t.Context(), `INSERT INTO qinglong.run_log_chunks (attempt_id, log_offset, bytes, created_at_ms)
		SELECT $1, g * 10, convert_to(lpad(g::text, 10, '.'), 'UTF8'), 0 FROM generate_series(0, $2::int - 1) g`, l.AttemptID, chunks); err != nil {
		t.Fatal(err)
	}
	if _, err := s.super.Exec(t.Context(), `ANALYZE qinglong.run_log_chunks`); err != nil {
		t.Fatal(err)
	}
	tx, rollback := s.runtimeTx(t)
	defer rollback()
	// The driver prepares the statement, and a prepared statement may come
	// to be planned once for every offset: measured that way too.
	if _, err := tx.Exec(t.Context(), "SET LOCAL plan_cache_mode = force_generic_plan"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(t.Context(), "PREPARE chunks_from AS "+sqlLogChunksFrom); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		explain string
		from    int64
	}{
		{"EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sqlLogChunksFrom, 15},
		{"EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sqlLogChunksFrom, 10*chunks - 15},
		{"EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE chunks_from('%s', %d, %d)", 15},
		{"EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE chunks_from('%s', %d, %d)", 10*chunks - 15},
	} {
		from := c.from
		var plan []byte
		if strings.Contains(c.explain, "EXECUTE") {
			_, plan = explainPlan(t, tx, "log chunks, generic", fmt.Sprintf(c.explain, l.AttemptID, from, from+20))
		} else {
			_, plan = explainPlan(t, tx, "log chunks", c.explain, l.AttemptID, from, from+20)
		}
		var top []struct {
			Plan planNode `json:"Plan"`
		}
		if err := json.Unmarshal(plan, &top); err != nil {
			t.Fatal(err)
		}
		rows, buffers := 0, 0
		top[0].Plan.walk(func(n planNode) {
			if n.Relation == "run_log_chunks" {
				rows += int(n.ActualRows*n.ActualLoops) + int(n.RemovedByFilter)
			}
		})
		buffers = top[0].Plan.SharedHit + top[0].Plan.SharedRead
		t.Logf("%s from %d: %d chunk rows, %d buffers", c.explain[:60], from, rows, buffers)
		if rows > 6 || buffers > 30 {
			t.Errorf("a read of 20 bytes from %d of %d chunks read %d chunk rows and %d buffers; want at most 6 rows (the start's chunk found, "+
				"the three it writes) and 30 buffers; plan:\n%s", from, chunks, rows, buffers, plan)
		}
	}
}
