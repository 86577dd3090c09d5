package apply

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// titled is a file whose project, task and trigger carry the given
// titles, each a YAML scalar as written.
func titledFile(project, task, trigger string) string {
	return "project: shop\ntitle: " + project + "\ntasks:\n  - name: checkin\n    title: " + task + "\n    script: echo\n" +
		"triggers:\n  - name: checkin-daily\n    title: " + trigger + "\n    task: checkin\n    cron: '0 8 * * *'\n    timezone: Asia/Shanghai\n"
}

func TestATitleInAnyLanguageIsReadTrimmedBesideItsName(t *testing.T) {
	doc, err := Parse("shop.yaml", []byte(titledFile("'  京东 商城 '", "每日签到", "\"京东资产统计 · 08:00 \"")))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Title != "京东 商城" || doc.Tasks[0].Title != "每日签到" || doc.Triggers[0].Title != "京东资产统计 · 08:00" {
		t.Fatalf("titles read as %q, %q, %q; want them trimmed, as written", doc.Title, doc.Tasks[0].Title, doc.Triggers[0].Title)
	}
	if doc.Project != "shop" || doc.Tasks[0].Spec.Name != "checkin" || doc.Triggers[0].Spec.Name != "checkin-daily" {
		t.Fatalf("names read as %q, %q, %q; a title leaves the name as it is", doc.Project, doc.Tasks[0].Spec.Name, doc.Triggers[0].Spec.Name)
	}
}

func TestAnOverLongTitleIsRefusedWithItsLimit(t *testing.T) {
	// 80 Chinese characters are 240 bytes: the limit counts characters.
	if _, err := Parse("shop.yaml", []byte(titledFile("x", strings.Repeat("签", validate.MaxTitleLen), "y"))); err != nil {
		t.Fatalf("a title of %d characters was refused: %v", validate.MaxTitleLen, err)
	}
	_, err := Parse("shop.yaml", []byte(titledFile("x", "y", strings.Repeat("签", validate.MaxTitleLen+1))))
	if qlerror.ReasonOf(err) != validate.RefusalTitleTooLong {
		t.Fatalf("a title of 81 characters: %v (reason %q); want %s", err, qlerror.ReasonOf(err), validate.RefusalTitleTooLong)
	}
	for _, want := range []string{"shop.yaml:9", "trigger.title", "81 characters", "the limit is 80"} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("refusal %q does not say %q", err, want)
		}
	}
}

func TestATitleOfMoreThanOneLineIsRefused(t *testing.T) {
	for _, title := range []string{`"每日\n签到"`, `"每日\t签到"`, `"签到\u0007"`, "|\n      每日\n      签到"} {
		_, err := Parse("shop.yaml", []byte(titledFile(title, "y", "z")))
		if qlerror.ReasonOf(err) != validate.RefusalTitleNotOneLine || !strings.Contains(err.Error(), "project.title: must be one line") {
			t.Errorf("project title %s: %v; want refused as more than one line", title, err)
		}
	}
}

func TestATitleThatIsNoTextIsRefusedNamingItsField(t *testing.T) {
	_, err := Parse("shop.yaml", []byte(titledFile("x", "[a, b]", "z")))
	if qlerror.ReasonOf(err) != RefusalNotString || !strings.Contains(err.Error(), "task.title") {
		t.Fatalf("a list as a title: %v; want refused as no string, naming task.title", err)
	}
}
