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
// a command that transforms a secret any other way can still print it.
//
// At each position it masks the longest secret that starts there. It
// passes output on as soon as that is decided, and holds back only the
// tail that could still be the start of a secret: from the first position
// where what follows is a proper prefix of some secret (the longest such
// suffix). A line end is passed on at once unless a multi-line secret
// could continue there. A held tail stays held while the command is quiet,
// until more output decides it or Flush ends the stream: passing it on
// would put the first bytes of a secret in the log, which the next output
// could complete, and masking it would hide output that is no secret, and
// differently depending on when the command paused.
type Redactor struct {
	next    io.Writer
	secrets [][]byte // longest first
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
	return r
}

func (r *Redactor) Write(p []byte) (int, error) {
	if len(r.secrets) == 0 {
		return r.next.Write(p)
	}
	r.pending = append(r.pending, p...)
	if err := r.emit(false); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what was held back; the stream has ended, so a held tail
// is decided as no more output follows it: a secret in it is masked, the
// mere start of one is written as it is.
func (r *Redactor) Flush() error {
	return r.emit(true)
}

// emit decides every pending position it can and writes the result; at
// the end of the stream it can decide them all.
func (r *Redactor) emit(end bool) error {
	r.out = r.out[:0]
	i := 0
	for i < len(r.pending) {
		n, open := r.secretAt(r.pending[i:], end)
		if open {
			break
		}
		if n > 0 {
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

// secretAt is the length of the longest secret b starts with, 0 for none.
// open says the decision waits for more output: before the end of the
// stream, b is a proper prefix of a secret longer than any it starts
// with, which more output could complete.
func (r *Redactor) secretAt(b []byte, end bool) (n int, open bool) {
	for _, s := range r.secrets {
		switch {
		case len(b) >= len(s):
			if bytes.HasPrefix(b, s) {
				return len(s), false
			}
		case !end && bytes.HasPrefix(s, b):
			return 0, true
		}
	}
	return 0, false
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
