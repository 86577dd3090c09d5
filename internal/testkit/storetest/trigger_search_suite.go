package storetest

import (
	"slices"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// searchFile is a definitions file whose triggers, task and project carry
// the names and titles the search test looks for, between triggers that
// match nothing.
const searchFile = `project: shop
tasks:
  - {name: other, command: [/usr/bin/env, "true"]}
  - {name: signin, title: 'Match Task', command: [/usr/bin/env, "true"]}
triggers:
  - {name: quiet-1, task: other, cron: "7 * * * *", timezone: UTC, misfire: skip}
  - {name: match-1, task: other, cron: "7 * * * *", timezone: UTC, misfire: skip}
  - {name: quiet-2, task: other, cron: "7 * * * *", timezone: UTC, misfire: skip}
  - {name: match-2, task: other, cron: "7 * * * *", timezone: UTC, misfire: skip}
  - {name: quiet-3, title: 'Rate 50 off', task: other, cron: "7 * * * *", timezone: UTC, misfire: skip}
  - {name: match-3, task: other, cron: "7 * * * *", timezone: UTC, misfire: skip}
  - {name: quiet-4, title: 'C:Temp', task: other, cron: "7 * * * *", timezone: UTC, misfire: skip}
  - {name: by-title, title: 'A MATCH by title', task: other, cron: "7 * * * *", timezone: UTC, misfire: skip}
  - {name: by-task, task: signin, cron: "7 * * * *", timezone: UTC, misfire: skip}
  - {name: rate, title: 'Rate 5%_off', task: other, cron: "7 * * * *", timezone: UTC, misfire: skip}
  - {name: path, title: 'C:\Temp', task: other, cron: "7 * * * *", timezone: UTC, misfire: skip}
`

// titledProjectFile is a second project whose title alone matches.
const titledProjectFile = `project: depot
title: 'Match Project'
tasks:
  - {name: other, command: [/usr/bin/env, "true"]}
triggers:
  - {name: idle, task: other, cron: "7 * * * *", timezone: UTC, misfire: skip}
`

// testASearchFindsEveryMatchingTrigger: the store filters before it
// pages, so every page but the last is full of matches and the cursor
// walks to each one; the search ignores case, looks in the trigger's,
// task's and project's names and titles, and the user's %, _ and \ match
// only themselves.
func testASearchFindsEveryMatchingTrigger(t *testing.T, f Fixture) {
	for name, text := range map[string]string{"shop.yaml": searchFile, "depot.yaml": titledProjectFile} {
		doc, err := apply.Parse(name, []byte(text))
		if err != nil {
			t.Fatalf("parse %s: %v", name, err)
		}
		applyFile(t, f, doc)
	}
	for search, want := range map[string][]string{
		"match":      {"shop/match-1", "shop/match-2", "shop/match-3", "shop/by-title", "shop/by-task", "depot/idle"},
		"SHOP/MATCH": {"shop/match-1", "shop/match-2", "shop/match-3"},
		"5%_":        {"shop/rate"},
		`:\T`:        {"shop/path"},
		"no such":    nil,
	} {
		var got []string
		after := ""
		for pages := 0; ; pages++ {
			if pages > len(want) {
				t.Fatalf("search %q: more pages than matches, the cursor does not advance (%v)", search, got)
			}
			list, next, err := f.Status.TriggerList(t.Context(), schedule.TriggerListParams{Limit: 2, After: after, Search: search})
			if err != nil {
				t.Fatalf("search %q after %q: %v", search, after, err)
			}
			if next != "" && len(list) != 2 {
				t.Fatalf("search %q: a page of %d with a next page; want every page but the last full of matches", search, len(list))
			}
			for _, s := range list {
				got = append(got, s.ProjectName+"/"+s.Name)
			}
			if next == "" {
				break
			}
			after = next
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("search %q found %v; want %v", search, got, want)
		}
	}
}

// testATitlesOnlySearchMatchesTriggerTitlesAlone: a search kept to titles
// finds the trigger whose own display title holds the text, ignoring
// case, and none that holds it in a name, its task's title or its
// project's title, even with a page of one.
func testATitlesOnlySearchMatchesTriggerTitlesAlone(t *testing.T, f Fixture) {
	for name, text := range map[string]string{"shop.yaml": searchFile, "depot.yaml": titledProjectFile} {
		doc, err := apply.Parse(name, []byte(text))
		if err != nil {
			t.Fatalf("parse %s: %v", name, err)
		}
		applyFile(t, f, doc)
	}
	list, next, err := f.Status.TriggerList(t.Context(), schedule.TriggerListParams{Limit: 1, Search: "match", TitlesOnly: true})
	if err != nil || len(list) != 1 || list[0].Name != "by-title" || next != "" {
		t.Fatalf("titles-only search %q: %d triggers (first %+v), next %q, %v; want shop/by-title alone", "match", len(list), list, next, err)
	}
}
