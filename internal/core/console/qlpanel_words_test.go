package console

import (
	"context"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/crontab"
	"github.com/qinglong/qinglong/internal/core/qlimport"
	"github.com/qinglong/qinglong/internal/testkit/qlpanel"
)

// Every item the panel import notes or leaves out, its config.sh's
// included, has a sentence in both languages: in Chinese by its code, its
// values filled in, and what it is of in Chinese words; in English the
// import's own sentence, as the command line prints it.
func TestEveryItemThePanelImportNotesIsSaidInBothLanguages(t *testing.T) {
	t.Parallel()
	for _, code := range qlimport.Codes {
		if _, ok := panelWhy["zh"][code]; !ok {
			t.Errorf("panel import code %s has no Chinese sentence in panelWhy", code)
		}
	}
	panel, err := qlimport.Read(context.Background(), qlpanel.Write(t, t.TempDir(), qlpanel.Schema, qlpanel.Rows))
	if err != nil {
		t.Fatal(err)
	}
	plan := qlimport.Make(panel, qlimport.Options{Project: "jd", Convert: crontab.Options{Zone: "Asia/Shanghai"}})
	items := append(append([]qlimport.Item{}, plan.Skipped...), plan.Notes...)
	seen := map[qlimport.Code]bool{}
	for _, it := range items {
		seen[it.Code] = true
		if en := itemWhyIn("en", it); en != it.Why || en == "" {
			t.Errorf("%s (%s) in English: %q, want the import's %q", it.Ref, it.Code, en, it.Why)
		}
		zh := itemWhyIn("zh", it)
		if zh == it.Why || placeholder.MatchString(zh) || strings.Contains(zh, " is ") || strings.Contains(zh, " the ") {
			t.Errorf("%s (%s) in Chinese: %q", it.Ref, it.Code, zh)
		}
		if ref := refIn("zh", it.Ref); it.Ref.Kind != qlimport.RefFile && (ref == it.Ref.String() || strings.Contains(ref, string(it.Ref.Kind))) {
			t.Errorf("%s in Chinese: %q", it.Ref, ref)
		}
	}
	for _, code := range []qlimport.Code{qlimport.CodeEnvName, qlimport.CodeSecretValue, qlimport.CodeDisabledValues, qlimport.CodeInterval,
		qlimport.CodeScriptsFolder, qlimport.CodeConfigNotify} {
		if !seen[code] {
			t.Errorf("the fixture's panel gave no %s: the test misses it", code)
		}
	}
}

// The note on the panel's task command names no printed file, in either
// language: the console, where it is shown too, prints none.
func TestThePanelsTaskCommandNoteNamesNoPrintedFile(t *testing.T) {
	t.Parallel()
	res := crontab.ConvertRows([]crontab.Row{{ID: 1, Name: "京东签到", Schedule: "0 5 0 * * *", Command: "task jd_bean_sign.js"}}, crontab.Options{Zone: "Asia/Shanghai"})
	said := 0
	for _, p := range res.Problems {
		if p.Code != crontab.CodeTaskCommand {
			continue
		}
		said++
		for _, l := range []string{"en", "zh"} {
			if got := problemWhyIn(l, p, true, false); strings.Contains(got, "printed") || strings.Contains(got, "打印") || !strings.Contains(got, "node jd_bean_sign.js") {
				t.Errorf("%s: %q; want the interpreter to write, naming no printed file", l, got)
			}
		}
	}
	if said != 1 {
		t.Fatalf("the panel's task command was noted %d times: %v", said, res.Problems)
	}
}
