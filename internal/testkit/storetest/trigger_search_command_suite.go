package storetest

import (
	"maps"
	"slices"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// commandsFile holds a qinglong panel's tasks: one a shell script, one an
// argv program, and one whose env and working directory, never searched,
// name the script too.
const commandsFile = `project: jd
tasks:
  - {name: bean, script: 'cd /ql/scripts && node jd_bean_sign.js > /dev/null'}
  - {name: fruit, command: [/usr/bin/node, /ql/scripts/jd_fruit.js, --share, "50%_off"]}
  - {name: quiet, command: [/usr/bin/env, "true"], workingDir: /ql/jd_bean_sign.js.d, env: {NOTE: jd_bean_sign.js}}
triggers:
  - {name: sign, task: bean, cron: "7 * * * *", timezone: UTC, misfire: skip}
  - {name: farm, task: fruit, cron: "7 * * * *", timezone: UTC, misfire: skip}
  - {name: quiet, task: quiet, cron: "7 * * * *", timezone: UTC, misfire: skip}
  - {name: jd_bean_sign-by-name, task: quiet, cron: "7 * * * *", timezone: UTC, misfire: skip}
`

// otherCommandsFile is a second project running the same script.
const otherCommandsFile = `project: neighbour
tasks:
  - {name: bean, script: 'node /ql/scripts/jd_bean_sign.js'}
triggers:
  - {name: theirs, task: bean, cron: "7 * * * *", timezone: UTC, misfire: skip}
`

// applyText parses and applies one definitions file.
func applyText(t *testing.T, f Fixture, name, text string) {
	t.Helper()
	doc, err := apply.Parse(name, []byte(text))
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	applyFile(t, f, doc)
}

// foundBy lists every trigger a search finds, as project/name with where
// it was found, paging to the end.
func foundBy(t *testing.T, f Fixture, p schedule.TriggerListParams) map[string]schedule.SearchField {
	t.Helper()
	got := map[string]schedule.SearchField{}
	for pages := 0; ; pages++ {
		if pages > 10 {
			t.Fatalf("search %q: the cursor does not advance (%v)", p.Search, got)
		}
		list, next, err := f.Status.TriggerList(t.Context(), p)
		if err != nil {
			t.Fatalf("search %q: %v", p.Search, err)
		}
		for _, s := range list {
			got[s.ProjectName+"/"+s.Name] = s.FoundIn
		}
		if next == "" {
			return got
		}
		p.After = next
	}
}

// testSearchFindsATaskByItsScript: a search finds a trigger by the
// command its task runs now — the shell script, or the argv program and
// arguments — ignoring case, and says it found it there; a name that
// holds the text wins over the command; env and working directory are
// never searched, a script the task no longer runs is not found, and a
// listing without a search says nothing of where. Text a stored command
// escapes (&, >, a quote) is found as typed.
func testSearchFindsATaskByItsScript(t *testing.T, f Fixture) {
	applyText(t, f, "jd.yaml", commandsFile)
	for search, want := range map[string]map[string]schedule.SearchField{
		"jd_bean_sign.js": {"jd/sign": schedule.FoundInScript},
		"JD_BEAN_SIGN":    {"jd/sign": schedule.FoundInScript, "jd/jd_bean_sign-by-name": schedule.FoundInName},
		"jd_fruit.js":     {"jd/farm": schedule.FoundInCommand},
		"node jd_fruit":   {},
		"/usr/bin/node":   {"jd/farm": schedule.FoundInCommand},
		"jd_fruit.js --s": {"jd/farm": schedule.FoundInCommand},
		"50%_off":         {"jd/farm": schedule.FoundInCommand},
		"jd/sign":         {"jd/sign": schedule.FoundInName},
		"&& NODE JD_BEAN": {"jd/sign": schedule.FoundInScript},
		"> /dev/null":     {"jd/sign": schedule.FoundInScript},
		"\"":              {},
	} {
		got := foundBy(t, f, schedule.TriggerListParams{Limit: 1, Search: search})
		if !maps.Equal(got, want) {
			t.Errorf("search %q found %v; want %v", search, got, want)
		}
	}
	list, _, err := f.Status.TriggerList(t.Context(), schedule.TriggerListParams{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range list {
		if s.FoundIn != "" {
			t.Errorf("a listing without a search says %s/%s was found in its %s", s.ProjectName, s.Name, s.FoundIn)
		}
	}
	applyText(t, f, "jd.yaml", `project: jd
tasks:
  - {name: bean, script: 'node /ql/scripts/jd_bean_change.js'}
`)
	if got := foundBy(t, f, schedule.TriggerListParams{Limit: 10, Search: "jd_bean_sign.js"}); len(got) != 0 {
		t.Errorf("after the task's script changed, a search for the old one still finds %v", slices.Collect(maps.Keys(got)))
	}
	if got := foundBy(t, f, schedule.TriggerListParams{Limit: 10, Search: "jd_bean_change"}); !maps.Equal(got, map[string]schedule.SearchField{"jd/sign": schedule.FoundInScript}) {
		t.Errorf("a search for the task's new script found %v; want jd/sign in its script", got)
	}
}

// testABoundSearchNeverFindsAnotherProjectsScript: a search confined to a
// bound user's or token's projects finds their triggers by script and
// never another project's, though that project runs the same script.
func testABoundSearchNeverFindsAnotherProjectsScript(t *testing.T, f Fixture) {
	applyText(t, f, "jd.yaml", commandsFile)
	applyText(t, f, "neighbour.yaml", otherCommandsFile)
	if got := foundBy(t, f, schedule.TriggerListParams{Limit: 10, Search: "jd_bean_sign.js"}); !maps.Equal(got, map[string]schedule.SearchField{"jd/sign": schedule.FoundInScript, "neighbour/theirs": schedule.FoundInScript}) {
		t.Fatalf("an unbound search found %v; want both projects' script", got)
	}
	got := foundBy(t, f, schedule.TriggerListParams{Limit: 10, Search: "jd_bean_sign.js", InProjects: []string{"jd"}})
	if !maps.Equal(got, map[string]schedule.SearchField{"jd/sign": schedule.FoundInScript}) {
		t.Errorf("a search bound to jd found %v; want jd/sign alone", got)
	}
}
