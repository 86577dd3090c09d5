package console

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/crontab"
)

// Every line the crontab import reports is said in Chinese on a Chinese
// page, its values filled in: none falls back to the converter's English.
func TestEveryLineACrontabImportReportsIsSaidInChinese(t *testing.T) {
	t.Parallel()
	for _, code := range crontab.Codes {
		if _, ok := importWhy["zh"][code]; !ok && code != crontab.CodeSchedule {
			t.Errorf("crontab code %s has no Chinese sentence in importWhy", code)
		}
	}
	crontabs := map[bool]string{
		false: "MAILTO=me@example.com\nQL_X=1\nCRON_TZ=Mars/Olympus\nSHELL=/bin/zsh\nnot an entry\n@reboot /bin/true\n@fortnightly /bin/true\n" +
			"61 * * * * /bin/true\n* * * * * printf 'a%b'\n0 5 0 * * * task jd_bean_sign.js\n33 8 * * * ql repo https://example.com/owner/s.git\n0 1 * * * ql repo https://example.com/owner/s.git\n0 2 * * * ql repo https://example.com/s.git\n0 3 * * * ql repo https://example.com/owner/b.git \"\" \"\" \"\" /../../x\n0 */6 * * * ql raw https://example.com/a.js\n0 0 * * * ql repo\n57 13 * * * ID=11 ql rmlog 7\n15 0,12 * * * ql update\n" +
			"0 0 */2 * 1 /bin/true\n* * * * * root /bin/true\n# 0 0 7 * * * ID=7 task jd_speed.js\n0 0 8 * * * task jd_tool.ts\n",
		true: "* * * * * -bad /bin/true\n* * * * * backup\n* * * * * backup /usr/local/bin/backup.sh\n",
	}
	seen := map[crontab.Code]bool{}
	for system, text := range crontabs {
		res, err := crontab.Convert(strings.NewReader(text), crontab.Options{Zone: "Asia/Shanghai", System: system, ScriptsDir: "/srv/ql/scripts"})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range res.Problems {
			seen[p.Code] = true
			got := problemWhy("zh", p)
			if got == p.Why || strings.Contains(got, "{") || strings.Contains(got, "cron fires") || strings.Contains(got, " is no ") || strings.Contains(got, "unknown") {
				t.Errorf("line %d (%s) in Chinese: %q", p.Line, p.Code, got)
			}
		}
	}
	for _, code := range crontab.Codes {
		if !seen[code] {
			t.Errorf("no line of the crontabs gave %s: the test misses it", code)
		}
	}
}

// The crontab import's English names the form's fields where the
// converter's sentence names a flag of `ql crontab convert`: the console
// has no --system or --account, only the "System crontab" box and the
// account field; the CLI's sentence keeps its flags.
func TestTheCrontabImportNamesTheFormsFieldsNotTheCommandsFlags(t *testing.T) {
	t.Parallel()
	crontabs := map[bool]string{
		false: "* * * * * root /bin/true\n",
		true:  "* * * * * -bad /bin/true\n* * * * * backup /usr/local/bin/backup.sh\n",
	}
	field := map[crontab.Code]string{
		crontab.CodeRootCommand: `"System crontab" ticked`,
		crontab.CodeNotAUser:    `"System crontab" unticked`,
		crontab.CodeRunAs:       `fill in "Account the server runs commands as" with backup`,
	}
	seen := 0
	for system, text := range crontabs {
		res, err := crontab.Convert(strings.NewReader(text), crontab.Options{Zone: "Asia/Shanghai", System: system})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range res.Problems {
			want, ok := field[p.Code]
			if !ok {
				continue
			}
			seen++
			if !strings.Contains(p.Why, "--") {
				t.Errorf("the converter's own sentence for %s, %q, names no flag: the CLI's keeps them", p.Code, p.Why)
			}
			for _, l := range []string{"en", "zh"} {
				if got := problemWhy(l, p); strings.Contains(got, "--") || (l == "en" && !strings.Contains(got, want)) {
					t.Errorf("line %d (%s) in %s: %q; want the form's field named (%s), no flag", p.Line, p.Code, l, got, want)
				}
			}
		}
	}
	if seen != len(field) {
		t.Fatalf("the crontabs gave %d of the %d lines naming a flag", seen, len(field))
	}
}

// The crontab import form's own words (its labels, help and notes) name
// no command-line flag in any language: the console has none, and a
// field says what it does.
func TestTheCrontabImportFormsWordsNameNoFlag(t *testing.T) {
	t.Parallel()
	for l, words := range importMessages {
		for key, text := range words {
			if strings.HasPrefix(key, "imp.") && strings.Contains(text, "--") {
				t.Errorf("%s %s names a flag: %q", l, key, text)
			}
		}
	}
}

// Every script the Scripts page makes no task of is said in Chinese on a
// Chinese page: none falls back to the reader's English.
func TestEveryScriptMadeNoTaskOfIsSaidInChinese(t *testing.T) {
	t.Parallel()
	for _, code := range crontab.ScriptCodes {
		if _, ok := importWhy["zh"][code]; !ok {
			t.Errorf("script code %s has no Chinese sentence in importWhy", code)
		}
	}
}
