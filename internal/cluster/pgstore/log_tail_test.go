package pgstore

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/logtail"
)

// The last lines of a long log are found reading the chunks near its end
// only: the last three lines of a 10 MB log of 10,000 chunks read at most
// a hundredth of it, through the bounded reads whose plans
// TestAPieceOfALongLogIsReadFromItsOwnChunksOnly measures, and print the
// log's last three lines.
func TestTheLastLinesOfALongLogAreFoundFromItsEndAlone(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.admitRuns(t, "tail", 1)
	l, _ := s.started(t, s.newWorker(t, "w1", nil, 1))
	const chunks, chunkBytes = 10_000, 1000
	// Chunk g is one line: g padded with dots to 999 bytes, then a newline.
	if _, err := s.super.Exec(t.Context(), `INSERT INTO qinglong.run_log_chunks (attempt_id, log_offset, bytes, created_at_ms)
		SELECT $1, g * $3, convert_to(lpad(g::text, $3 - 1, '.') || E'\n', 'UTF8'), 0 FROM generate_series(0, $2::int - 1) g`, l.AttemptID, chunks, chunkBytes); err != nil {
		t.Fatal(err)
	}
	if _, err := s.super.Exec(t.Context(), `UPDATE qinglong.attempts SET log_bytes = $2 WHERE id = $1`, l.AttemptID, chunks*chunkBytes); err != nil {
		t.Fatal(err)
	}
	var read int64
	reader := func(ctx context.Context, offset, max int64, w io.Writer) (int64, error) {
		var piece bytes.Buffer
		next, _, err := s.runtime.ReadAttemptLogUpTo(ctx, l.AttemptID, offset, max, &piece)
		read += int64(piece.Len())
		_, _ = piece.WriteTo(w)
		return next, err
	}
	size, err := logtail.Length(t.Context(), reader)
	if err != nil || size != chunks*chunkBytes {
		t.Fatalf("the log's length: %d, %v; want %d", size, err, chunks*chunkBytes)
	}
	start, err := logtail.Start(t.Context(), reader, size, 3)
	if err != nil || start != size-3*chunkBytes {
		t.Fatalf("the last three lines start at %d, %v; want %d", start, err, size-3*chunkBytes)
	}
	if read > size/100 {
		t.Errorf("finding the last three lines of %d bytes read %d of them; want at most a hundredth", size, read)
	}
	var out bytes.Buffer
	if _, _, err := s.runtime.ReadAttemptLogUpTo(t.Context(), l.AttemptID, start, size, &out); err != nil ||
		out.String() != strings.Repeat(".", 995)+"9997\n"+strings.Repeat(".", 995)+"9998\n"+strings.Repeat(".", 995)+"9999\n" {
		t.Errorf("the last three lines: %.40q…, %v; want lines 9997 to 9999", out.String(), err)
	}
}
