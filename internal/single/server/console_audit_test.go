package server

import (
	"database/sql"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// A trigger's page lists its newest audit records, newest first, with the
// time in the viewer's zone, the action in the page's language, who (the
// console session and its address) and the note, escaped and isolated
// from the text direction around it; it says when older records exist.
func TestConsoleTriggerPageShowsItsNewestAuditRecordsInBothLanguages(t *testing.T) {
	t.Parallel()
	site := startConsoleSite(t)
	db, err := sql.Open("sqlite", LayoutOf(site.dir).DB+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < 10)
		INSERT INTO trigger_schedule_audit (trigger_id, action, actor, note, at_ms)
		SELECT ?1, CASE n % 2 WHEN 1 THEN 'pause' ELSE 'resume' END, 'seed', 'old ' || n, n * 1000 FROM i`, site.triggerID); err != nil {
		t.Fatal(err)
	}
	c := consoleClient(t)
	csrf := site.signIn(t, c, site.tokens[apitoken.Operate])
	for _, step := range []struct{ verb, note string }{{"pause", "freeze <b>"}, {"resume", ""}} {
		resp, page := httpcall.Form(t, c, http.MethodPost, site.base+"/triggers/"+site.triggerID+"/"+step.verb, url.Values{"csrf": {csrf}, "note": {step.note}})
		if !tookForm(resp) {
			t.Fatalf("%s: %d\n%s", step.verb, resp.StatusCode, page)
		}
	}
	var newestMs int64
	if err := db.QueryRow(`SELECT at_ms FROM trigger_schedule_audit ORDER BY id DESC LIMIT 1`).Scan(&newestMs); err != nil {
		t.Fatal(err)
	}
	page := func(lang string) string {
		_, p := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers/"+site.triggerID+"?tz=Asia/Shanghai&lang="+lang, nil)
		_, table, _ := strings.Cut(p, `<table id="audit"`)
		return table
	}
	en := page("en")
	// The table's pieces: its head, its header row, then one per record.
	rows := strings.Split(en, "<tr>")
	if len(rows) != 12 || !strings.Contains(en, `id="audit-more"`) || !strings.Contains(en, "Only its newest 10 audit records are shown; older ones exist") {
		t.Fatalf("a trail of 12 records in English: want the newest 10 and a word of the older ones:\n%s", en)
	}
	rows = rows[2:]
	by := "<bdi>console:token:console-operate@127.0.0.1</bdi>"
	shanghai := time.UnixMilli(newestMs).In(time.FixedZone("", 8*3600)).Format("2006-01-02 15:04:05") + " UTC&#43;08:00"
	if !strings.Contains(rows[0], ">"+shanghai+"<") || !strings.Contains(rows[0], ">resumed<") || !strings.Contains(rows[0], by) {
		t.Fatalf("the newest record %q: want it resumed at %s (the viewer's zone) by %s", rows[0], shanghai, by)
	}
	if !strings.Contains(rows[1], ">paused<") || !strings.Contains(rows[1], by) || !strings.Contains(rows[1], "<bdi>freeze &lt;b&gt;</bdi>") {
		t.Fatalf("the second record %q: want the pause with its note escaped", rows[1])
	}
	if !strings.Contains(rows[2], ">resumed<") || !strings.Contains(rows[2], "<bdi>old 10</bdi>") || !strings.Contains(rows[9], "<bdi>old 3</bdi>") {
		t.Fatalf("the older records %q: want them newest first", rows[2:])
	}
	zh := page("zh")
	if !strings.Contains(zh, `data-label="操作">恢复<`) || !strings.Contains(zh, `data-label="操作">暂停<`) || !strings.Contains(zh, "这里只显示最新的 10 条审计记录，还有更早的记录") {
		t.Fatalf("the trail in Chinese: want the actions and the word of older records in Chinese:\n%s", zh)
	}
	// A pause refuses a text-direction character in its note; a record
	// written with SQL may still hold one.
	if _, err := db.Exec(`INSERT INTO trigger_schedule_audit (trigger_id, action, actor, note, at_ms) VALUES (?, 'pause', 'seed', ?, ?)`,
		site.triggerID, "spoof\u202eevil", newestMs+1); err != nil {
		t.Fatal(err)
	}
	if rows := strings.Split(page("en"), "<tr>"); len(rows) < 3 || !strings.Contains(rows[2], "<bdi>spoof\u202eevil</bdi>") {
		t.Fatalf("a note with a text-direction character %q: want it isolated in its own bdi", rows)
	}
}
