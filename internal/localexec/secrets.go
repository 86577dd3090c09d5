package localexec

import (
	"encoding/json"
	"errors"
	"os"

	"github.com/qinglong/qinglong/internal/qlerror"
)

// Secrets is the local secret store: a JSON object of name → value in one
// file readable by its owner only (mode 0600). It is read at each attempt
// start, so edits apply to the next run without a restart. Nothing here
// ever puts a value into an error message.
type Secrets struct {
	Path string
}

// Resolve returns the values of refs. A missing file is an empty store.
func (s Secrets) Resolve(refs []string) (map[string]string, error) {
	if len(refs) == 0 {
		return nil, nil
	}
	info, err := os.Stat(s.Path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, qlerror.New(qlerror.FailedPrecondition, "secret %q is not defined: %s does not exist; create it as a JSON object {\"%s\": \"...\"} with mode 0600", refs[0], s.Path, refs[0])
	}
	if err != nil {
		return nil, qlerror.Wrap(qlerror.Unavailable, err, "read secrets file %s", s.Path)
	}
	if info.Mode().Perm()&0o077 != 0 {
		return nil, qlerror.New(qlerror.FailedPrecondition, "secrets file %s is accessible by group or others (mode %04o); run chmod 600 %s", s.Path, info.Mode().Perm(), s.Path)
	}
	data, err := os.ReadFile(s.Path)
	if err != nil {
		return nil, qlerror.Wrap(qlerror.Unavailable, err, "read secrets file %s", s.Path)
	}
	var all map[string]string
	if err := json.Unmarshal(data, &all); err != nil {
		// The decoder's message names offsets and types, never content.
		return nil, qlerror.Wrap(qlerror.FailedPrecondition, err, "secrets file %s must be a JSON object of string values", s.Path)
	}
	out := make(map[string]string, len(refs))
	for _, ref := range refs {
		v, ok := all[ref]
		if !ok {
			return nil, qlerror.New(qlerror.FailedPrecondition, "secret %q is not defined in %s; add it", ref, s.Path)
		}
		out[ref] = v
	}
	return out, nil
}
