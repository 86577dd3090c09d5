package executor

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/logtail"
)

// The last lines of a long log file are found reading near its end only:
// the last three lines of 8 MB read at most a hundredth of the file
// through ReadLogUpTo (a seek, then the window), not the file.
func TestTheLastLinesOfALongLogFileAreFoundFromItsEndAlone(t *testing.T) {
	t.Parallel()
	dir, id := t.TempDir(), ids.New()
	var log bytes.Buffer
	for i := range 500_000 {
		fmt.Fprintf(&log, "line %010d\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, id+".log"), log.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	var read int64
	reader := func(_ context.Context, offset, max int64, w io.Writer) (int64, error) {
		var piece bytes.Buffer
		next, err := ReadLogUpTo(dir, id, offset, max, &piece)
		read += int64(piece.Len())
		_, _ = piece.WriteTo(w)
		return next, err
	}
	size, err := logtail.Length(t.Context(), reader)
	if err != nil || size != int64(log.Len()) {
		t.Fatalf("the log's length: %d, %v; want %d", size, err, log.Len())
	}
	start, err := logtail.Start(t.Context(), reader, size, 3)
	if err != nil || string(log.Bytes()[start:]) != "line 0000499997\nline 0000499998\nline 0000499999\n" {
		t.Fatalf("the last three lines: from %d, %v", start, err)
	}
	if read > size/100 {
		t.Errorf("finding the last three lines of %d bytes read %d of them; want at most a hundredth", size, read)
	}
}
