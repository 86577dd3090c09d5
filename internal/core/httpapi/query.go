package httpapi

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
)

// clip cuts a client's own text (a parameter's name or value, a path, a
// host) to what a refusal repeats back (qlerror.Echoed): enough to
// recognise it, never the whole of a 9000-character name.
func clip(s string) string { return qlerror.Echoed(s) }

// params reads a query string that may hold only the named parameters,
// each at most once, so a misspelt filter is an error rather than silently
// ignored.
func params(q url.Values, allowed ...string) (map[string]string, error) {
	out := map[string]string{}
	for k, v := range q {
		if !slices.Contains(allowed, k) {
			if len(allowed) == 0 {
				return nil, qlerror.New(qlerror.Invalid, "query parameter %q is not supported; this endpoint takes none", clip(k)).
					Because(RefusalQueryUnknown, "parameter", clip(k))
			}
			return nil, qlerror.New(qlerror.Invalid, "query parameter %q is not supported; use %s", clip(k), strings.Join(allowed, ", ")).
				Because(RefusalQueryUnknown, "parameter", clip(k), "allowed", strings.Join(allowed, ", "))
		}
		if len(v) != 1 {
			return nil, qlerror.New(qlerror.Invalid, "query parameter %q is given %d times; give it once", k, len(v)).
				Because(RefusalQueryTwice, "parameter", k)
		}
		out[k] = v[0]
	}
	return out, nil
}

// count parses the count parameter name (limit, runs, ledger) of value
// raw, defaulting to def and bounded to 1–max; a refusal names the
// parameter as the client sent it.
func count(name, raw string, def, max int) (int, error) {
	if raw == "" {
		return def, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 || n > max {
		return 0, qlerror.New(qlerror.Invalid, "query parameter %s is %q; give a whole number from 1 to %d, or leave it out for %d", name, clip(raw), max, def).
			Because(RefusalQueryNotACount, "parameter", name, "value", clip(raw), "min", 1, "max", max)
	}
	return n, nil
}

// boolean parses the parameter name of value raw, true or false,
// defaulting to def.
func boolean(name, raw string, def bool) (bool, error) {
	switch raw {
	case "":
		return def, nil
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, qlerror.New(qlerror.Invalid, "query parameter %s is %q; give true or false, or leave it out for %t", name, clip(raw), def).
		Because(RefusalQueryNotABoolean, "parameter", name, "value", clip(raw), "allowed", "true, false")
}

// idParam reads the parameter name, which takes an id (hint says which
// command prints it), in canonical form: "" when left out.
func idParam(name, raw, hint string) (string, error) {
	if raw == "" {
		return "", nil
	}
	id, ok := canonicalID(raw)
	if !ok {
		return "", qlerror.New(qlerror.Invalid, "query parameter %s is %q, not an id; give %s", name, clip(raw), hint).
			Because(run.RefusalListNotAnID, "parameter", name, "value", clip(raw))
	}
	return id, nil
}

// The hints of idParam's refusals of a listing's project and cursor.
const (
	projectIDHint = "a project's name or id, as GET /api/v1/projects lists the names and GET /api/v1/projects/{name} answers the id"
	cursorHint    = "the previous page's next cursor as it was answered"
	triggerIDHint = "a trigger's id, as GET /api/v1/triggers answers triggerId"
)

// canonicalID is s as the stores hold ids, lower-case, when s is a UUID
// in its 36-character form in either case: ids are UUIDs, which compare
// case-insensitively, so an id a tool upper-cased names the same object.
func canonicalID(s string) (string, bool) {
	if len(s) != 36 {
		return s, false
	}
	u, err := uuid.Parse(s)
	if err != nil {
		return s, false
	}
	return u.String(), true
}
