package executor

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// A read of at most max bytes of a log copies no more, from any offset,
// and says where it stopped; the end of the log stops it sooner.
func TestReadLogUpToCopiesAtMostMaxBytesAndSaysWhereItStopped(t *testing.T) {
	t.Parallel()
	dir, id := t.TempDir(), ids.New()
	if err := os.WriteFile(filepath.Join(dir, id+".log"), []byte("hello world\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		offset, max, next int64
		want              string
	}{{0, 5, 5, "hello"}, {6, 3, 9, "wor"}, {8, 100, 12, "rld\n"}, {12, 5, 12, ""}} {
		var out bytes.Buffer
		if next, err := ReadLogUpTo(dir, id, c.offset, c.max, &out); err != nil || next != c.next || out.String() != c.want {
			t.Errorf("read %d bytes from %d: %q next %d err %v; want %q next %d", c.max, c.offset, out.String(), next, err, c.want, c.next)
		}
	}
	if _, err := ReadLogUpTo(dir, id, 0, 0, &bytes.Buffer{}); !qlerror.Is(err, qlerror.Invalid) {
		t.Errorf("a read of 0 bytes: %v; want it refused", err)
	}
}
