package process

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/url"
	"sort"
	"strings"
)

// mask replaces a secret value in captured output.
var mask = []byte("***")

// Redactor masks secret values in a byte stream, also when a value is split
// across writes. Masking is best effort: it catches each value, each line
// of a multi-line value, and the common encodings of a value (see forms);
// a command that transforms a secret any other way can still print it. At each position it masks the longest secret that starts
// there; it decides a position only once the longest secret could fit in
// what it has seen, holding back the last len(longest)-1 bytes until more
// output (or Flush) arrives.
type Redactor struct {
	next    io.Writer
	secrets [][]byte // longest first
	hold    int
	pending []byte
	out     []byte
}

// NewRedactor masks values (and their common forms, see forms) in what
// is written to next.
func NewRedactor(next io.Writer, values []string) *Redactor {
	r := &Redactor{next: next}
	for _, v := range forms(values) {
		r.secrets = append(r.secrets, []byte(v))
	}
	sort.Slice(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
	if len(r.secrets) > 0 {
		r.hold = len(r.secrets[0]) - 1
	}
	return r
}

func (r *Redactor) Write(p []byte) (int, error) {
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
func (r *Redactor) Flush() error {
	return r.emit(len(r.pending))
}

// emit decides every pending position before cut and writes the result.
func (r *Redactor) emit(cut int) error {
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

func (r *Redactor) secretAt(b []byte) int {
	for _, s := range r.secrets {
		if bytes.HasPrefix(b, s) {
			return len(s)
		}
	}
	return 0
}

// minMaskLen is the shortest form masked: a shorter line of a multi-line
// secret (or a short encoding) would mask noise all over the output.
const minMaskLen = 4

// forms lists what to mask for values: each value; each line of a
// multi-line value (a PEM key printed line by line, or with CRLF); and each
// value's base64 (standard and URL alphabets, padded and not), URL-encoded
// (query and path escaping) and JSON-string-escaped forms.
func forms(values []string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if len(s) >= minMaskLen && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, v := range values {
		add(v)
		if strings.ContainsAny(v, "\r\n") {
			for line := range strings.Lines(v) {
				add(strings.TrimRight(line, "\r\n"))
			}
		}
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			add(enc.EncodeToString([]byte(v)))
		}
		add(url.QueryEscape(v))
		add(url.PathEscape(v))
		add(jsonEscaped(v, true))
		add(jsonEscaped(v, false))
	}
	return out
}

// jsonEscaped is v as it appears inside a JSON string, with or without
// the HTML-safe escapes of <, > and & (encoders differ).
func jsonEscaped(v string, html bool) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	if err := enc.Encode(v); err != nil {
		return ""
	}
	quoted := bytes.TrimSpace(b.Bytes())
	return string(quoted[1 : len(quoted)-1])
}
