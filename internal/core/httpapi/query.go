package httpapi

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// params reads a query string that may hold only the named parameters,
// each at most once, so a misspelt filter is an error rather than silently
// ignored.
func params(q url.Values, allowed ...string) (map[string]string, error) {
	out := map[string]string{}
	for k, v := range q {
		if !slices.Contains(allowed, k) {
			if len(allowed) == 0 {
				return nil, qlerror.New(qlerror.Invalid, "query parameter %q is not supported; this endpoint takes none", k)
			}
			return nil, qlerror.New(qlerror.Invalid, "query parameter %q is not supported; use %s", k, strings.Join(allowed, ", "))
		}
		if len(v) != 1 {
			return nil, qlerror.New(qlerror.Invalid, "query parameter %q is given %d times; give it once", k, len(v))
		}
		out[k] = v[0]
	}
	return out, nil
}

// limit parses ?limit=, defaulting to def and bounded to 1–max.
func limit(raw string, def, max int) (int, error) {
	if raw == "" {
		return def, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 || n > max {
		return 0, qlerror.New(qlerror.Invalid, "limit %q must be a whole number from 1 to %d", raw, max)
	}
	return n, nil
}
