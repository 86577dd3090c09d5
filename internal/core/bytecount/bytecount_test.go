package bytecount

import (
	"bytes"
	"errors"
	"testing"
)

// shortWriter takes at most room bytes in all, then refuses.
type shortWriter struct {
	bytes.Buffer
	room int
}

var errFull = errors.New("full")

func (s *shortWriter) Write(p []byte) (int, error) {
	if len(p) > s.room {
		n, _ := s.Buffer.Write(p[:s.room])
		s.room = 0
		return n, errFull
	}
	s.room -= len(p)
	return s.Buffer.Write(p)
}

// The count is what the underlying writer took, a short write's part
// included, not what was offered: a caller resuming after it starts
// where the writer stopped.
func TestTheCountIsWhatTheUnderlyingWriterTook(t *testing.T) {
	under := &shortWriter{room: 5}
	w := NewWriter(under)
	if _, err := w.Write([]byte("abc")); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("defgh")); !errors.Is(err, errFull) {
		t.Fatalf("a write past the room: %v; want the writer's refusal", err)
	}
	if got, want := w.Count(), int64(under.Len()); got != want || want != 5 {
		t.Fatalf("count %d after the writer took %d bytes; want 5", got, want)
	}
}
