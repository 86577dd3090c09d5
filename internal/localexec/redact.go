package localexec

import (
	"bytes"
	"io"
	"sort"
)

// mask replaces a secret value in captured output.
var mask = []byte("***")

// redactor masks secret values in a byte stream, also when a value is split
// across writes. At each position it masks the longest secret that starts
// there; it decides a position only once the longest secret could fit in
// what it has seen, holding back the last len(longest)-1 bytes until more
// output (or Flush) arrives.
type redactor struct {
	next    io.Writer
	secrets [][]byte // longest first
	hold    int
	pending []byte
	out     []byte
}

func newRedactor(next io.Writer, values []string) *redactor {
	r := &redactor{next: next}
	for _, v := range values {
		if v != "" {
			r.secrets = append(r.secrets, []byte(v))
		}
	}
	sort.Slice(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
	if len(r.secrets) > 0 {
		r.hold = len(r.secrets[0]) - 1
	}
	return r
}

func (r *redactor) Write(p []byte) (int, error) {
	if len(r.secrets) == 0 {
		return r.next.Write(p)
	}
	r.pending = append(r.pending, p...)
	if err := r.emit(len(r.pending) - r.hold); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what was held back; the stream has ended.
func (r *redactor) Flush() error {
	return r.emit(len(r.pending))
}

// emit decides every pending position before cut and writes the result.
func (r *redactor) emit(cut int) error {
	r.out = r.out[:0]
	i := 0
	for i < cut {
		if n := r.secretAt(r.pending[i:]); n > 0 {
			r.out = append(r.out, mask...)
			i += n
			continue
		}
		r.out = append(r.out, r.pending[i])
		i++
	}
	r.pending = append(r.pending[:0], r.pending[i:]...)
	if len(r.out) == 0 {
		return nil
	}
	_, err := r.next.Write(r.out)
	return err
}

func (r *redactor) secretAt(b []byte) int {
	for _, s := range r.secrets {
		if bytes.HasPrefix(b, s) {
			return len(s)
		}
	}
	return 0
}
