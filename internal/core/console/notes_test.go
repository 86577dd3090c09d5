package console

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/process"
)

// Every reason a note about a valid file may have has a sentence in every
// language but English (an English page shows `ql apply`'s words), so a
// Chinese page shows no English note.
func TestEveryNoteReasonHasASentenceInEveryOtherLanguage(t *testing.T) {
	t.Parallel()
	declared := 0
	for path, reason := range reasonsDeclaredInPackages(t, []string{"../apply"}, "NoteReason") {
		declared++
		for l, lw := range notes {
			if w := lw.sentences[apply.NoteReason(reason)]; w.sentence == "" || w.item == "" {
				t.Errorf("%s: note reason %q has no sentence in %s", path, reason, l)
			}
		}
	}
	if declared < 3 {
		t.Fatalf("only %d note reasons were found declared; the scan is broken", declared)
	}
}

// Each note a valid file gets reads whole in Chinese, every object it is
// about named with its params (the jitter and the period), the objects
// past the first three counted; in English it is `ql apply`'s line, but
// the missing secrets are set on the Secrets page, not with a command.
func TestEveryNoteOfAValidFileReadsWholeInChinese(t *testing.T) {
	t.Parallel()
	var tasks, triggers strings.Builder
	for _, n := range []string{"t1", "t2", "t3", "t4"} {
		tasks.WriteString("  - {name: " + n + ", script: echo, placement: {labels: {region: eu}}, env: {A: {secret: api_token}}}\n")
		triggers.WriteString("  - {name: " + n + ", task: t1, cron: '*/10 * * * * *', timezone: UTC, jitter: 30s}\n")
	}
	var channels strings.Builder
	for _, n := range []string{"c1", "c2", "c3", "c4"} {
		channels.WriteString("    " + n + ": {type: telegram, url: 'https://api.telegram.org/bot1:x/sendMessage', chatId: '1'}\n")
	}
	doc, err := apply.Parse("x.yaml", []byte("project: demo\nnotifications:\n  channels:\n"+channels.String()+"  rules:\n    - {on: failed, channel: c1}\n"+
		"tasks:\n"+tasks.String()+"triggers:\n"+triggers.String()))
	if err != nil {
		t.Fatal(err)
	}
	secrets := filepath.Join(t.TempDir(), "qinglong-secrets.json")
	if err := os.WriteFile(secrets, []byte(`{"other": "value"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	ns := apply.Notes(doc, apply.NoteScope{RunsHere: true, NowMs: 1_790_000_000_000, MissingSecrets: process.Secrets{Path: secrets}.Missing})
	want := map[apply.NoteReason]string{
		apply.NotePlacementIgnored: "（任务：t1、t2、t3，另有 1 个）",
		apply.NoteJitterPastPeriod: "（触发器：t1（抖动 30s，两次发生相隔 10s）、t2（抖动 30s，两次发生相隔 10s）、t3（抖动 30s，两次发生相隔 10s），另有 1 个）",
		apply.NoteSecretsMissing:   "还没有定义 api_token：",
		apply.NoteTokenInURL:       "改用 urlSecret 指明（渠道：c1（telegram）、c2（telegram）、c3（telegram），另有 1 个）",
	}
	if len(ns) != len(want) {
		t.Fatalf("notes %v; want one of each reason", ns)
	}
	hole := regexp.MustCompile(`\{[a-z]+\}`)
	for _, n := range ns {
		zh := noteText("zh", n)
		if hole.MatchString(zh) || !strings.Contains(zh, want[n.Reason]) {
			t.Errorf("note %s in Chinese: %q, want it whole, saying %q", n.Reason, zh, want[n.Reason])
		}
		en := noteText("en", n)
		switch {
		case n.Reason == apply.NoteSecretsMissing:
			if want := "does not define api_token yet: set each on the Secrets page before"; !strings.Contains(en, want) || strings.Contains(en, "secrets set") {
				t.Errorf("note %s in English: %q, want it to say %q, not a command", n.Reason, en, want)
			}
		case en != n.String():
			t.Errorf("note %s in English: %q, want ql apply's %q", n.Reason, en, n.String())
		}
	}
}

// Every cause a secrets file can be unusable for (each declared in
// process) has a sentence in English and in every other language, so the
// note that the server cannot use its secrets file reads whole on every
// page, saying why and naming the file and the secrets (a Chinese page in
// no English).
func TestEverySecretsFileCauseReadsWholeInEveryLanguage(t *testing.T) {
	t.Parallel()
	hole := regexp.MustCompile(`\{[a-z]+\}`)
	declared := 0
	for path, cause := range reasonsDeclaredInPackages(t, []string{"../process"}, "SecretsCause") {
		declared++
		n := apply.Note{Reason: apply.NoteSecretsUnusable, Items: []map[string]string{{"name": "api_token"}},
			Params: map[string]string{"file": "/srv/ql/qinglong-secrets.json", "cause": string(cause), "owner": "1001", "uid": "1000", "mode": "0644", "error": "permission denied"}}
		if en := n.String(); hole.MatchString(en) || strings.Contains(en, "cannot be used: . ") {
			t.Errorf("%s: a secrets file unusable for %q in English: %q; want why, whole", path, cause, en)
		}
		for l := range notes {
			s := noteText(l, n)
			if s == n.String() || hole.MatchString(s) || !strings.Contains(s, "/srv/ql/qinglong-secrets.json") || !strings.Contains(s, "api_token") {
				t.Errorf("%s: a secrets file unusable for %q in %s: %q; want the file, the secret and why, whole, in that language", path, cause, l, s)
			}
		}
	}
	if declared < 5 {
		t.Fatalf("only %d secrets file causes were found declared; the scan is broken", declared)
	}
}

// A secrets file of valid JSON with a value that is not a string cannot
// be used either, and the note says what fixes that too, in every
// language: to write each value as a quoted string, not only to correct a
// syntax the file does not get wrong.
func TestASecretsFileOfValidJSONWithANumberIsToldToQuoteItsValues(t *testing.T) {
	t.Parallel()
	doc, err := apply.Parse("x.yaml", []byte("project: demo\ntasks:\n  - {name: t1, script: echo, env: {A: {secret: api_token}}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	secrets := filepath.Join(t.TempDir(), "qinglong-secrets.json")
	if err := os.WriteFile(secrets, []byte(`{"api_token": 12345}`), 0o600); err != nil {
		t.Fatal(err)
	}
	ns := apply.Notes(doc, apply.NoteScope{RunsHere: true, NowMs: 1_790_000_000_000, MissingSecrets: process.Secrets{Path: secrets}.Missing})
	if len(ns) != 1 || ns[0].Reason != apply.NoteSecretsUnusable || ns[0].Params["cause"] != string(process.SecretsNotJSON) {
		t.Fatalf("notes %v; want one, that the secrets file is not a JSON object of string values", ns)
	}
	for l, want := range map[string]string{"en": `write every value as a quoted string ({"name": "value"})`, "zh": `并把每个值都写成带引号的字符串（{"名称": "值"}）`} {
		if s := noteText(l, ns[0]); !strings.Contains(s, want) || strings.Contains(s, "12345") {
			t.Errorf("the note in %s: %q; want it to say %q, and no byte of the file", l, s, want)
		}
	}
}

// A jitter under a second moves an occurrence's due time within its fire
// time's second: the due time is then shown with its milliseconds, in
// English and Chinese, not as a copy of the fire time; a due time seconds
// away is shown, as the fire time is, in whole seconds. Each time of the
// line, with a due time or not, and each word around the due time, is a
// span that does not wrap: a phone wraps the line between them, never
// inside a time or a Chinese word (抖动后, 到期).
func TestADueTimeWithinItsFireTimesSecondIsShownWithItsMilliseconds(t *testing.T) {
	at := time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC).UnixMilli()
	for _, c := range []struct {
		l     string
		dueMs int64
		want  string
	}{
		{"en", at + 250, `<span class="time">2026-12-01 03:00:00 UTC</span> <span class="nowrap">(due</span> <span class="time">2026-12-01 03:00:00.250 UTC</span><span class="nowrap">)</span>`},
		{"zh", at + 250, `<span class="time">2026-12-01 03:00:00 UTC</span><span class="nowrap">（抖动后</span> <span class="time">2026-12-01 03:00:00.250 UTC</span> <span class="nowrap">到期）</span>`},
		{"en", at + 1250, `<span class="time">2026-12-01 03:00:00 UTC</span> <span class="nowrap">(due</span> <span class="time">2026-12-01 03:00:01 UTC</span><span class="nowrap">)</span>`},
		{"en", at, `<span class="time">2026-12-01 03:00:00 UTC</span>`},
	} {
		if got := string(fireText(c.l, at, c.dueMs, "UTC")); got != c.want {
			t.Errorf("%s, due %d ms after: %q, want %q", c.l, c.dueMs-at, got, c.want)
		}
	}
}

// The note of the enabled triggers a file leaves out reads whole in
// Chinese, naming them, and the task one follows to its new revision; in
// both languages it sends to the trigger's page, where Disable is, not to
// a command the console cannot run.
func TestTheNoteOfTriggersAFileLeavesOutReadsWholeInChinese(t *testing.T) {
	t.Parallel()
	n := apply.Note{Reason: apply.NoteUnlistedTriggers, Items: []map[string]string{{"name": "daily", "task": "report"}, {"name": "hourly"}}}
	zh := noteText("zh", n)
	if want := "改名的触发器也会以旧名继续运行"; !strings.Contains(zh, want) || !strings.Contains(zh, "或在它的页面上停用它（触发器：daily（随任务 report 转到此文件发布的新修订版）、hourly）") {
		t.Errorf("in Chinese: %q; want it saying %q, to disable one on its page, and naming daily, following task report, and hourly", zh, want)
	}
	en := noteText("en", n)
	if want := "or disable it on its page (triggers: daily (follows task report to the revision this file publishes), hourly)"; !strings.HasSuffix(en, want) || strings.Contains(en, "triggers disable") {
		t.Errorf("in English: %q; want it to end %q, naming no command", en, want)
	}
}

// The note of triggers that fire no more reads whole in Chinese, each
// named with its endAt.
func TestTheNoteOfEndedTriggersReadsWholeInChinese(t *testing.T) {
	t.Parallel()
	n := apply.Note{Reason: apply.NoteEndedTriggers, Items: []map[string]string{{"name": "past", "end": "2020-01-01T00:00:00Z"}}}
	if zh, want := noteText("zh", n), "因此不会再触发；请把 endAt 往后移，或去掉它（触发器：past（endAt 2020-01-01T00:00:00Z））。"; !strings.HasSuffix(zh, want) {
		t.Errorf("in Chinese: %q; want it to end %q", zh, want)
	}
}

// The note of tasks using secrets without placement, which a cluster
// gives, reads whole in Chinese, naming each task with its secrets and the
// worker's command, and in English as `ql apply` prints it.
func TestTheWorkersSecretsNoteReadsWholeInEveryLanguage(t *testing.T) {
	t.Parallel()
	n := apply.Note{Reason: apply.NoteWorkerSecrets, Items: []map[string]string{{"name": "deploy", "secrets": "api-token, db-pass"}}}
	zh := noteText("zh", n)
	for _, want := range []string{"deploy（密钥：api-token, db-pass）", "ql-worker secrets set NAME --secrets-file FILE", "placement.labels"} {
		if !strings.Contains(zh, want) || regexp.MustCompile(`\{[a-z]+\}`).MatchString(zh) {
			t.Errorf("in Chinese: %q; want it whole, saying %q", zh, want)
		}
	}
	if en := noteText("en", n); en != n.String() || !strings.Contains(en, "deploy (secrets: api-token, db-pass)") {
		t.Errorf("in English: %q; want ql apply's %q", en, n.String())
	}
}

// The notes of triggers restricting both day fields read whole in Chinese
// and in English, naming each trigger with its two fields: days matching
// either fire, and Vixie cron would have required both for a field
// starting with "*".
func TestTheNotesOfBothDayFieldsReadWholeInBothLanguages(t *testing.T) {
	t.Parallel()
	doc, err := apply.Parse("x.yaml", []byte("project: demo\ntasks:\n  - {name: a, script: echo}\ntriggers:\n"+
		"  - {name: e, task: a, cron: '0 0 1,15 * MON', timezone: UTC}\n  - {name: v, task: a, cron: '0 0 */2 * 1', timezone: UTC}\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[apply.NoteReason][2]string{
		apply.NoteDaysEither:    {"符合其中任一个的日子触发（与 Kubernetes CronJob 相同）", "e（日“1,15”或星期“MON”）"},
		apply.NoteDaysVixieBoth: {"只在两者都符合的日子触发它们。这里没有能要求两者都符合的表达式", "v（日“*/2”或星期“1”）"},
	}
	ns := apply.DaysNotes(doc)
	if len(ns) != 2 {
		t.Fatalf("notes %v; want one of each", ns)
	}
	hole := regexp.MustCompile(`\{[a-z]+\}`)
	for _, n := range ns {
		zh, en := noteText("zh", n), noteText("en", n)
		if hole.MatchString(zh) || !strings.Contains(zh, want[n.Reason][0]) || !strings.Contains(zh, want[n.Reason][1]) {
			t.Errorf("note %s in Chinese: %q, want it whole, saying %q", n.Reason, zh, want[n.Reason])
		}
		if en != n.String() || !strings.Contains(en, "days matching EITHER") {
			t.Errorf("note %s in English: %q, want ql apply's, saying days matching either fire", n.Reason, en)
		}
	}
}
