package singlecli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/testkit/qlpanel"
)

// `import qinglong DIR` without --apply prints the definitions file a dry
// run takes whole and, on standard error, the secrets by name (never a
// value), the dependencies and what was not converted; nothing is
// stored. --apply publishes the file, sets the secrets and declares the
// dependencies; a second --apply changes nothing.
func TestImportingAPanelTwiceChangesNothingTheSecondTime(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	panel := qlpanel.Write(t, t.TempDir(), qlpanel.Schema, qlpanel.Rows)
	args := []string{"import", "qinglong", filepath.Dir(panel), "--project", "jd", "--tz", "Asia/Shanghai", "--scripts-dir", "/srv/ql/scripts", "--data-dir", dir}
	code, file, preview := ql(t, args...)
	if code != 0 {
		t.Fatalf("preview: exit %d\n%s", code, preview)
	}
	for _, want := range []string{
		"tasks and subscriptions: 5 converted (2 of them disabled)\n", "secrets: 5 would be set (values not shown)\n",
		"  jd/JD_COOKIE: in the project's env as JD_COOKIE, 2 values joined by &; remarks: 账号一; 账号二\n",
		"  jd/OLD_TOKEN.disabled: disabled in the panel: given to no task, 1 value; remarks: 停用\n",
		"dependencies: 3 would be declared (installed from the Dependencies page)\n  node: axios\n  python: requests==2.31.0\n  linux: curl\n",
		"  task 3 (删除日志): ql rmlog is the qinglong panel's command",
		"  subscription 3 (私有仓库): it is pulled at an interval",
		"  env SHORT: secret \"jd/SHORT\": the value has 2 bytes",
	} {
		if !strings.Contains(preview, want) {
			t.Errorf("the preview lacks %q:\n%s", want, preview)
		}
	}
	for _, value := range []string{"pt_key", "line one", "tok-0123", "PRIVATE-KEY"} {
		if strings.Contains(preview+file, value) {
			t.Errorf("the preview prints %q, part of a value or key:\n%s\n%s", value, preview, file)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "qinglong-secrets.json")); err == nil {
		t.Error("the preview wrote the secrets file")
	}
	saved := writeFile(t, t.TempDir(), "jd.yaml", file)
	if code, out, errOut := ql(t, "apply", "--dry-run", "-f", saved, "--data-dir", dir); code != 0 || !strings.Contains(out, "valid (5 tasks, 5 triggers)") {
		t.Fatalf("dry run of the previewed file: %d\n%s%s", code, out, errOut)
	}

	code, out, errOut := ql(t, append(args, "--apply")...)
	if code != 0 || !strings.Contains(out, "secret jd/JD_COOKIE set\n") || !strings.Contains(out, "dependency node axios declared\n") || !strings.Contains(out, "created") {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "qinglong-secrets.json"))
	if err != nil {
		t.Fatal(err)
	}
	var secrets map[string]string
	if err := json.Unmarshal(raw, &secrets); err != nil {
		t.Fatal(err)
	}
	if secrets["jd/JD_COOKIE"] != "pt_key=AAA;pt_pin=one;&pt_key=BBB;pt_pin=two;" || secrets["jd/MULTI_LINE"] != "line one\nline two" || len(secrets) != 5 {
		t.Errorf("secrets stored: %d of them, JD_COOKIE %q, MULTI_LINE %q", len(secrets), secrets["jd/JD_COOKIE"], secrets["jd/MULTI_LINE"])
	}
	if code, out, _ := ql(t, "deps", "list", "--data-dir", dir); code != 0 || !strings.Contains(out, "requests==2.31.0") || !strings.Contains(out, "declared") {
		t.Errorf("deps list after the import: %d\n%s", code, out)
	}
	if code, out, _ := ql(t, "subscriptions", "list", "--data-dir", dir); code != 0 || !strings.Contains(out, "shufflewzc/faker2") {
		t.Errorf("subscriptions list after the import: %d\n%s", code, out)
	}
	if code, out, _ := ql(t, "export", "jd", "--data-dir", dir); code != 0 || !strings.Contains(out, "title: 京东签到") || !strings.Contains(out, "secret: jd/JD_COOKIE") {
		t.Errorf("export after the import: %d\n%s", code, out)
	}

	trail := auditTrail(t, dir)
	code, again, errOut := ql(t, append(args, "--apply")...)
	if code != 0 || strings.Contains(again, " set\n") || strings.Contains(again, "replaced") || strings.Contains(again, " declared\n") || strings.Contains(again, "created") || strings.Contains(again, "updated") ||
		!strings.Contains(again, "5 secrets unchanged\n") || !strings.Contains(again, "3 dependencies declared already\n") {
		t.Fatalf("second apply: exit %d\n%s%s", code, again, errOut)
	}
	if after := auditTrail(t, dir); len(after) != len(trail) {
		t.Errorf("the second import recorded %d changes: %v", len(after)-len(trail), after[:len(after)-len(trail)])
	}
	if !slices.ContainsFunc(trail, func(r string) bool { return strings.HasPrefix(r, "secret.set ") && strings.Contains(r, "jd/JD_COOKIE") }) {
		t.Errorf("the import's secret was not audited: %v", trail)
	}
}
