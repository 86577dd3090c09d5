package process

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"syscall"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// Secrets is the local secret store: a JSON object of name → value in one
// file readable by its owner only (mode 0600). It is read at each attempt
// start, so edits apply to the next run without a restart. Nothing here
// ever puts a value into an error message.
type Secrets struct {
	Path string
}

// MinSecretLen is the shortest value accepted as a secret: masking a
// shorter one would hide unrelated output and tell a reader where the
// value occurs.
const MinSecretLen = 4

// Missing returns the names of refs the file does not define (all of
// them when there is no file), for a warning before any command needs
// them. A file the server could not read either is an error.
func (s Secrets) Missing(refs []string) ([]string, error) {
	if len(refs) == 0 {
		return nil, nil
	}
	all, err := s.load()
	if errors.Is(err, os.ErrNotExist) {
		return refs, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, ref := range refs {
		if _, ok := all[ref]; !ok {
			out = append(out, ref)
		}
	}
	return out, nil
}

// load reads the whole file after checking its owner and mode; a missing
// file is os.ErrNotExist.
func (s Secrets) load() (map[string]string, error) {
	f, err := os.Open(s.Path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if err != nil {
		return nil, qlerror.Wrap(qlerror.Unavailable, err, "read secrets file %s", s.Path)
	}
	defer f.Close() //nolint:errcheck // read only
	info, err := f.Stat()
	if err != nil {
		return nil, qlerror.Wrap(qlerror.Unavailable, err, "read secrets file %s", s.Path)
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return nil, qlerror.New(qlerror.FailedPrecondition, "secrets file %s is owned by uid %d, not by the server's user (uid %d); run chown %d %s", s.Path, st.Uid, os.Geteuid(), os.Geteuid(), s.Path)
	}
	if info.Mode().Perm()&0o077 != 0 {
		return nil, qlerror.New(qlerror.FailedPrecondition, "secrets file %s is accessible by group or others (mode %04o); run chmod 600 %s", s.Path, info.Mode().Perm(), s.Path)
	}
	if !info.Mode().IsRegular() {
		return nil, qlerror.New(qlerror.FailedPrecondition, "secrets file %s is not a regular file", s.Path)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, qlerror.Wrap(qlerror.Unavailable, err, "read secrets file %s", s.Path)
	}
	var all map[string]string
	if err := json.Unmarshal(data, &all); err != nil {
		// The decoder's message names offsets and types, never content.
		return nil, qlerror.Wrap(qlerror.FailedPrecondition, err, "secrets file %s must be a JSON object of string values", s.Path)
	}
	return all, nil
}

// Resolve returns the values of refs. A missing file is an empty store.
// The file is checked on the descriptor it is read from — owner (this
// server's user) and mode (no group or other access) — so it cannot be
// swapped between the check and the read.
func (s Secrets) Resolve(refs []string) (map[string]string, error) {
	if len(refs) == 0 {
		return nil, nil
	}
	all, err := s.load()
	if errors.Is(err, os.ErrNotExist) {
		return nil, qlerror.New(qlerror.FailedPrecondition, "secret %q is not defined: %s does not exist; create it as a JSON object {\"%s\": \"...\"} with mode 0600", refs[0], s.Path, refs[0])
	}
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(refs))
	for _, ref := range refs {
		v, ok := all[ref]
		if !ok {
			return nil, qlerror.New(qlerror.FailedPrecondition, "secret %q is not defined in %s; add it", ref, s.Path)
		}
		if len(v) < MinSecretLen {
			return nil, qlerror.New(qlerror.FailedPrecondition, "secret %q in %s is shorter than %d bytes: it cannot be masked in output without hiding unrelated text; use a longer value, or a plain env value if it is not secret", ref, s.Path, MinSecretLen)
		}
		out[ref] = v
	}
	return out, nil
}
