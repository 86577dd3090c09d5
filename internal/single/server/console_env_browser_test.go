package server

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/testkit/browsertest"
)

// In a real browser, on a phone, in Chinese: the New task form's Add a
// variable puts another env row in the page without sending the form, a
// row set from a secret chooses it by name, and the preview shows the env — the
// secret by its name — before the task is created with it; the editor
// fits the phone.
func TestConsoleNewTaskInABrowserAddsEnvRows(t *testing.T) {
	ctx := browsertest.Start(t)
	site := startConsoleSite(t)
	if _, err := (process.Secrets{Path: filepath.Join(site.dir, "qinglong-secrets.json")}).Set("JD_COOKIE", "pt_key=1"); err != nil {
		t.Fatal(err)
	}
	b := site.base
	dir := browsertest.ArtifactDir(t)

	browsertest.Step(t, ctx, "sign in", chromedp.EmulateViewport(390, 844), chromedp.Navigate(b+"/signin?lang=zh"),
		browsertest.SignInWithToken(site.tokens[apitoken.Admin], "概览"))
	browsertest.Step(t, ctx, "open the form and fill in the task and its first variable", chromedp.Navigate(b+"/definitions/new?lang=zh"),
		browsertest.WaitText("main h1", "新建任务"),
		chromedp.SendKeys(chromedp.ID("nt-project"), "jd"),
		chromedp.SendKeys(chromedp.ID("nt-task"), "bean"),
		chromedp.SendKeys(chromedp.ID("nt-script"), "node jd_bean_sign.js"),
		chromedp.SendKeys(chromedp.ID("nt-cron"), "0 5 0 * * *"),
		chromedp.SendKeys(`tr.env-row:nth-child(1) input[name=env_name]`, "MODE"),
		chromedp.SendKeys(`tr.env-row:nth-child(1) textarea[name=env_value]`, "fast"))
	browsertest.Step(t, ctx, "add a variable in the page", chromedp.Click(chromedp.ID("env-add")))
	if rows := browsertest.Value(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("tr.env-row").length`)); rows != 2 {
		t.Fatalf("after Add a variable the editor has %d rows, want 2 (the page not sent)", rows)
	}
	if wide := browsertest.Value(t, ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); wide > 390 {
		t.Errorf("the form with its env editor is %d px wide on a 390 px phone", wide)
	}
	browsertest.Screenshot(t, ctx, dir, "newtask-env-390x844.png", 390)
	browsertest.Step(t, ctx, "name the second", chromedp.SendKeys(`tr.env-row:nth-child(2) input[name=env_name]`, "JD_COOKIE"))
	// Set from a secret, as choosing it in the row does: the row then
	// shows the secret's box.
	if shown := browsertest.Value(t, ctx, chromedp.Evaluate[bool](`(() => { const row = document.querySelectorAll("tr.env-row")[1], kind = row.querySelector("select[name=env_kind]");
		kind.value = "secret"; kind.dispatchEvent(new Event("change")); row.querySelector("[name=env_secret]").value = "JD_COOKIE";
		return !row.querySelector("td.env-secret").hidden && row.querySelector("td.env-value").hidden; })()`)); !shown {
		t.Errorf("a row set from a secret does not show the secret's box alone")
	}
	browsertest.Step(t, ctx, "preview",
		chromedp.Click(chromedp.ID("nt-preview")),
		browsertest.WaitText("#env-shown", "密钥 JD_COOKIE"),
		browsertest.WaitText("#env-shown", "fast"))
	if leaked := browsertest.Value(t, ctx, chromedp.Evaluate[bool](`document.documentElement.outerHTML.includes("pt_key")`)); leaked {
		t.Errorf("the preview holds the secret's value")
	}
	browsertest.Step(t, ctx, "confirm", chromedp.Click(chromedp.ID("def-confirm")),
		browsertest.WaitText("#def-applied", "已应用"))
	want := []task.EnvVar{{Name: "JD_COOKIE", SecretRef: "JD_COOKIE"}, {Name: "MODE", Value: "fast"}}
	d, err := site.srv.store.ProjectDefinitions(t.Context(), "jd", 10)
	if err != nil || len(d.Tasks) != 1 {
		t.Fatalf("project jd: %d tasks, %v; want the task created", len(d.Tasks), err)
	}
	if got := d.Tasks[0].Spec.Command.Env; !slices.Equal(got, want) {
		t.Errorf("the task created has env %+v, want %+v", got, want)
	}
}
