package sqlitestore

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/ids"
)

// A trigger listing — a search above all, whose matches may lie thousands
// of triggers apart — finds its page's ids before it returns its first
// trigger (pageFirst), with or without a project, a cursor, a search
// (read in names and commands, with or without the spec's prefilter) or
// a bound token's projects,
// so the request's context ending stops the whole walk.
func TestATriggerListingFindsItsPageBeforeItsFirstTrigger(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	project, after := ids.New(), ids.New()
	for name, args := range map[string][]any{
		"all":                     {"", "", 101, "", "", "", false},
		"project":                 {project, "", 101, "", "", "", false},
		"cursor":                  {"", after, 101, "", "", "", false},
		"search":                  {"", "", 101, "%nightly%", "", "%nightly%", false},
		"project, search":         {project, "", 101, "%nightly%", "", "%nightly%", false},
		"search after a page":     {"", after, 101, "%nightly%", "", "%nightly%", false},
		"search the spec escapes": {"", "", 101, "%a && b%", "", "", false},
		"bound projects":          {"", after, 101, "", `["alpha","bravo"]`, "", false},
		"bound projects, search":  {"", "", 101, "%jd\\_bean%", `["alpha","bravo"]`, "%jd\\_bean%", false},
	} {
		plan := strings.Join(e.queryPlan(t, qTriggersList, args...), "\n")
		if !pageFirst(plan, "t", "sqlite_autoindex_triggers_1") {
			t.Errorf("%s listing:\n%s\nwant its page's ids found first (LIST SUBQUERY), then each trigger read by id", name, plan)
		}
	}
}
