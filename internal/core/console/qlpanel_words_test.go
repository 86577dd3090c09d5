package console

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/crontab"
	"github.com/qinglong/qinglong/internal/core/qlimport"
	"github.com/qinglong/qinglong/internal/testkit/qlpanel"
)

// Every item the panel import notes or leaves out, its config.sh's
// included, has a sentence in both languages by its code, its values
// filled in: in English the console's own, not the command line's; in
// Chinese with what it is of in Chinese words.
func TestEveryItemThePanelImportNotesIsSaidInBothLanguages(t *testing.T) {
	t.Parallel()
	for _, l := range []string{"en", "zh"} {
		for _, code := range qlimport.Codes {
			if _, ok := panelWhy[l][code]; !ok {
				t.Errorf("panel import code %s has no %s sentence in panelWhy", code, l)
			}
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
		if en := itemWhyIn("en", it); en == "" || placeholder.MatchString(en) || (it.Err != nil && !strings.HasSuffix(en, it.Why)) {
			t.Errorf("%s (%s) in English: %q, want its code's sentence whole, any refusal's own words last (%q)", it.Ref, it.Code, en, it.Why)
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

// commandLineFlag is a flag of a command or of the server, which a
// console user cannot give.
var commandLineFlag = regexp.MustCompile(`--[a-z][a-z-]+`)

// The console's sentence of every panel import code, in both languages,
// says what to do on the console's pages, naming no command line flag,
// command or documentation file: only where no page changes it does one
// name a server setting, said to be the server's and whom to ask. The
// command line keeps its own sentences, which name its flags.
func TestEveryPanelImportNoteSaysWhatToDoInTheConsoleNotOnTheCommandLine(t *testing.T) {
	t.Parallel()
	serverSetting := map[qlimport.Code]bool{qlimport.CodeSettingConcurrency: true}
	ask := map[string]string{"en": "ask whoever runs QingLong", "zh": "请询问运行 QingLong 的人"}
	for _, l := range []string{"en", "zh"} {
		for _, code := range qlimport.Codes {
			s := panelWhy[l][code]
			flags := commandLineFlag.FindAllString(s, -1)
			switch {
			case s == "":
				t.Errorf("%s: code %s has no sentence", l, code)
			case serverSetting[code] && (len(flags) != 1 || !strings.Contains(s, "server's "+flags[0]+" setting") && !strings.Contains(s, "服务器的 "+flags[0]+" 设置") || !strings.Contains(s, ask[l])):
				t.Errorf("%s: code %s: %q; want the server's setting named as the server's, saying to %q", l, code, s, ask[l])
			case !serverSetting[code] && len(flags) > 0:
				t.Errorf("%s: code %s names %v, which the console cannot give: %q", l, code, flags, s)
			case strings.Contains(s, "`") || strings.Contains(s, "ql ") || strings.Contains(s, "docs/"):
				t.Errorf("%s: code %s sends the console user to a command or a file: %q", l, code, s)
			}
		}
	}
	panel, err := qlimport.Read(context.Background(), qlpanel.Write(t, t.TempDir(), qlpanel.Schema, qlpanel.Rows))
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range qlimport.Make(panel, qlimport.Options{Project: "jd", Convert: crontab.Options{Zone: "Asia/Shanghai"}}).Notes {
		if it.Code == qlimport.CodeScriptsFolder && !strings.Contains(it.Why, "--scripts-dir") {
			t.Errorf("the command line's note of the scripts folder: %q; want it naming --scripts-dir, as it was", it.Why)
		}
	}
}
