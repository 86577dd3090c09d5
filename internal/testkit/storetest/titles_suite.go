package storetest

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/project"
)

// titleCases are the guarantees of display titles: what a file titles
// reads back as written, in any language, and a change of titles alone
// publishes no revision, so a trigger keeps its schedule and ledger.
func titleCases() map[string]func(*testing.T, Fixture) {
	return map[string]func(*testing.T, Fixture){
		"APublishedTitleReadsBackAsWritten":                testATitleReadsBackAsWritten,
		"ATitleOnlyChangeKeepsTheScheduleAndTheLedger":     testATitleOnlyChangeKeepsTheSchedule,
		"AnExportKeepsTheTitlesSoApplyingItChangesNothing": testAnExportKeepsTheTitles,
	}
}

// titledFile is a definitions file of project shop whose project, task
// checkin and trigger checkin-daily carry the given titles ("" leaves the
// key out).
func titledFile(t *testing.T, projectTitle, taskTitle, triggerTitle string) *apply.Document {
	t.Helper()
	key := func(title string) string {
		if title == "" {
			return ""
		}
		return "title: " + title + ", "
	}
	var s strings.Builder
	s.WriteString("project: shop\n")
	if projectTitle != "" {
		s.WriteString("title: " + projectTitle + "\n")
	}
	s.WriteString("tasks:\n  - {name: checkin, " + key(taskTitle) + "command: [/usr/bin/env, \"true\"]}\n")
	s.WriteString("triggers:\n  - {name: checkin-daily, " + key(triggerTitle) + "task: checkin, cron: \"7 * * * *\", timezone: UTC, misfire: skip}\n")
	doc, err := apply.Parse("shop.yaml", []byte(s.String()))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, s.String())
	}
	return doc
}

func testATitleReadsBackAsWritten(t *testing.T, f Fixture) {
	applyFile(t, f, titledFile(t, "京东 商城", "每日签到", "  京东资产统计 🧾  "))
	p, err := f.Catalog.ProjectByName(t.Context(), "shop")
	if err != nil || p.Title != "京东 商城" {
		t.Fatalf("project read back %+v, %v; want title 京东 商城", p, err)
	}
	got, err := f.Catalog.TitlesOf(t.Context(), p.ID)
	want := catalog.Titles{Tasks: map[string]string{"checkin": "每日签到"}, Triggers: map[string]string{"checkin-daily": "京东资产统计 🧾"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("titles read back %+v, %v; want %+v (trimmed, byte for byte)", got, err, want)
	}
	d, err := f.Definitions.ProjectDefinitions(t.Context(), "shop", 10)
	if err != nil || !reflect.DeepEqual(d.Titles, want) || d.Project.Title != "京东 商城" {
		t.Fatalf("definitions read back titles %+v and project %+v, %v; want %+v", d.Titles, d.Project, err, want)
	}
	if names, err := f.Definitions.ProjectNames(t.Context(), "", 5, nil); err != nil || !reflect.DeepEqual(names, []catalog.ProjectName{{ID: p.ID, Name: "shop", Title: "京东 商城", Status: project.Active}}) {
		t.Fatalf("the projects listed: %+v, %v; want shop with its title, as the console's pickers offer it", names, err)
	}
	// Removing a title from the file clears it.
	applyFile(t, f, titledFile(t, "", "", "京东资产统计 🧾"))
	if got, err = f.Catalog.TitlesOf(t.Context(), p.ID); err != nil || len(got.Tasks) != 0 || got.Triggers["checkin-daily"] != "京东资产统计 🧾" {
		t.Fatalf("titles after the task's was left out: %+v, %v; want the trigger's alone", got, err)
	}
	if p, err = f.Catalog.ProjectByName(t.Context(), "shop"); err != nil || p.Title != "" {
		t.Fatalf("project after its title was left out: %+v, %v; want no title", p, err)
	}
}

func testATitleOnlyChangeKeepsTheSchedule(t *testing.T, f Fixture) {
	applyFile(t, f, titledFile(t, "", "签到", "签到"))
	p, err := f.Catalog.ProjectByName(t.Context(), "shop")
	if err != nil {
		t.Fatal(err)
	}
	tg, err := f.Catalog.TriggerByName(t.Context(), p.ID, "checkin-daily")
	if err != nil {
		t.Fatal(err)
	}
	initialise(t, f)
	// Three hours of occurrences fall due and no decision reaches them: a
	// republish would record them as passed and clear the cursor
	// (RepublishedTriggerResetsItsScheduleRow); a title must do neither.
	makeDue(t, f, tg.TriggerID, 3*60*60_000)
	before, ledgerBefore := row(t, f, tg.TriggerID), ledger(t, f, tg.TriggerID)
	res := applyFile(t, f, titledFile(t, "", "每日签到", "每日签到 · 07 分"))
	for _, r := range res[1:] {
		if r.Change != catalog.Updated || !slices.Equal(r.Fields, []string{"title"}) || r.Revision != 1 {
			t.Fatalf("a title-only apply reported %s; want updated (title) at revision 1", r)
		}
	}
	after, ledgerAfter := row(t, f, tg.TriggerID), ledger(t, f, tg.TriggerID)
	if !reflect.DeepEqual(before, after) {
		t.Fatalf("schedule row %+v -> %+v; a title-only change must leave it as it is", before, after)
	}
	if !reflect.DeepEqual(ledgerBefore, ledgerAfter) {
		t.Fatalf("ledger %+v -> %+v; a title-only change records nothing", ledgerBefore, ledgerAfter)
	}
	if cur, err := f.Catalog.TriggerByName(t.Context(), p.ID, "checkin-daily"); err != nil || cur.Revision != tg.Revision || cur.ContentDigest != tg.ContentDigest {
		t.Fatalf("trigger after a title-only change: revision %d digest %s, %v; want revision %d as it was", cur.Revision, cur.ContentDigest, err, tg.Revision)
	}
}

func testAnExportKeepsTheTitles(t *testing.T, f Fixture) {
	applyFile(t, f, titledFile(t, "商城", "每日签到", "京东资产统计"))
	ex, err := apply.ExportProject(t.Context(), f.Definitions, "shop", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"title: 商城", "title: 每日签到", "title: 京东资产统计"} {
		if !strings.Contains(string(ex.YAML), want) {
			t.Fatalf("export lacks %q:\n%s", want, ex.YAML)
		}
	}
	doc, err := apply.Parse("export.yaml", ex.YAML)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range applyFile(t, f, doc) {
		if r.Change != catalog.Unchanged {
			t.Fatalf("applying the export: %s; want every object unchanged", r)
		}
	}
}
