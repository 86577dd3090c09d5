package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/view"
	"github.com/qinglong/qinglong/internal/single/singlecli"
	"github.com/qinglong/qinglong/internal/testkit/freeport"
)

// runOK runs the binary of opts with args and returns its stdout; it
// must exit 0.
func runOK(t *testing.T, opts cli.Options, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := cli.Main(context.Background(), opts, args, &out, &errOut); code != 0 {
		t.Fatalf("%s %s: exit %d: %s", opts.Binary, strings.Join(args, " "), code, errOut.String())
	}
	return out.String()
}

// triggerIDOf is the id of the trigger PROJECT/NAME in the data directory
// dir, as `triggers show -o json` gives it.
func triggerIDOf(t *testing.T, opts cli.Options, dir, name string) string {
	t.Helper()
	m := regexp.MustCompile(`"triggerId":\s*"([^"]+)"`).FindStringSubmatch(runOK(t, opts, "triggers", "show", name, "-o", "json", "--data-dir", dir))
	if m == nil {
		t.Fatalf("triggers show %s -o json printed no triggerId", name)
	}
	return m[1]
}

// consolePage is one page a console served, its HTML unescaped, and the
// commands it must name (a %s for the binary), as the console shows them
// but for their long flags (keptFlags).
type consolePage struct {
	name, body string
	want       []string
}

// keptFlags is s, a command on a console's page, with each of its long
// flags a span a line does not break, as the console shows them.
func keptFlags(s string) string {
	return longFlag.ReplaceAllString(s, `$1<span class="nowrap">$2</span>`)
}

var longFlag = regexp.MustCompile(`(^|\s)(--[A-Za-z][A-Za-z0-9-]*)`)

// consolePages serves the console of the binary of opts on a database
// with a project demo (a trigger nightly with more ledger entries than its
// page shows, and a disabled trigger off), signs in with an admin token,
// and returns, in English and in Chinese, the sign-in page, the
// definitions page and a preview, nightly's page with its ledger hint,
// and the refusals of a run now of off, of a trigger id and of a run id
// that are none. It also returns what the server's /metrics served.
func consolePages(t *testing.T, opts cli.Options) ([]consolePage, string) {
	t.Helper()
	dir := t.TempDir()
	defs := filepath.Join(t.TempDir(), "defs.yaml")
	file := "project: demo\ntasks:\n  - name: hello\n    script: echo hello\n    retry: {maxAttempts: 3}\n  - {name: slow, script: sleep 60}\ntriggers:\n" +
		"  - {name: nightly, task: hello, cron: '0 3 * * *', timezone: UTC}\n" +
		"  - {name: slowly, task: slow, cron: '0 5 * * *', timezone: UTC}\n" +
		"  - {name: off, task: hello, cron: '0 4 * * *', timezone: UTC, enabled: false}\n"
	if err := os.WriteFile(defs, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	runOK(t, opts, "apply", "-f", defs, "--data-dir", dir)
	token := strings.TrimSpace(runOK(t, opts, "tokens", "create", "browser", "--scope", "admin", "--data-dir", dir))
	triggerID := func(name string) string { return triggerIDOf(t, opts, dir, "demo/"+name) }
	nightly, off, slowly := triggerID("nightly"), triggerID("off"), triggerID("slowly")
	// One entry more than the page shows, so it says how to list them all.
	db, err := sql.Open("sqlite", filepath.Join(dir, "qinglong.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < 51)
		INSERT INTO occurrence_ledger (trigger_id, seq, trigger_revision, reason, first_scheduled_at_ms, last_scheduled_at_ms,
			occurrence_count, at_least, recorded_at_ms)
		SELECT ?1, n, 1, 'misfire', n * 1000, n * 1000, 1, 0, n * 1000 FROM i`, nightly); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	addr, metricsAddr := freeport.Addr(t), freeport.Addr(t)
	base := "http://" + addr
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	// A form that succeeded answers 303 to the page showing what it did
	// (?flash=), which is followed, as a browser does; no other redirect.
	c := &http.Client{Jar: jar, CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		if req.URL.Query().Has("flash") {
			return nil
		}
		return http.ErrUseLastResponse
	}}
	fetch := func(method, path string, form url.Values) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, base+path, strings.NewReader(form.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		if form != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, html.UnescapeString(string(b))
	}
	csrf := regexp.MustCompile(`name="csrf" value="([^"]+)"`)
	csrfOf := func(page string) string {
		t.Helper()
		m := csrf.FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("the page has no CSRF field:\n%s", page)
		}
		return m[1]
	}
	var pages []consolePage
	var scraped string
	ready := func(string) bool {
		resp, err := http.Get(base + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return false
		}
		for _, l := range []string{"en", "zh"} {
			_, page := fetch(http.MethodGet, "/signin?lang="+l, nil)
			pages = append(pages, consolePage{"sign-in (" + l + ")", page, []string{"<code>%s users create NAME --owner --data-dir DATA_DIR</code>", "<code>%s tokens create NAME --scope operate --data-dir DATA_DIR</code>"}})
		}
		_, page := fetch(http.MethodGet, "/signin", nil)
		if st, _ := fetch(http.MethodPost, "/signin", url.Values{"csrf": {csrfOf(page)}, "token": {token}}); st != http.StatusSeeOther {
			t.Fatalf("sign-in with the admin token answered %d", st)
		}
		_, page = fetch(http.MethodGet, "/", nil)
		session := csrfOf(page)
		// demo/slowly's Run holds the server's one slot, so that nightly's
		// Runs queue behind it: its run page says why it waits, its
		// trigger's page warns of the backlog.
		api := func(method, path, key string) string {
			t.Helper()
			req, err := http.NewRequest(method, base+path, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+token)
			if key != "" {
				req.Header.Set("Idempotency-Key", key)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("POST %s: %d %s", path, resp.StatusCode, b)
			}
			return string(b)
		}
		slow := regexp.MustCompile(`"runId":"([^"]+)"`).FindStringSubmatch(api(http.MethodPost, "/api/v1/triggers/"+slowly+"/run", "slow"))
		if slow == nil {
			t.Fatal("run now of demo/slowly answered no runId")
		}
		defer api(http.MethodPost, "/api/v1/runs/"+slow[1]+"/cancel", "cancel")
		// Runs queued before it starts would queue behind no one.
		for i := 0; !strings.Contains(api(http.MethodGet, "/api/v1/runs/"+slow[1], ""), `"state":"running"`); i++ {
			if i == 100 {
				t.Fatal("demo/slowly's Run did not start within 10s")
			}
			time.Sleep(100 * time.Millisecond)
		}
		for i := 1; i < view.BacklogAt; i++ {
			api(http.MethodPost, "/api/v1/triggers/"+nightly+"/run", fmt.Sprint("backlog-", i))
		}
		// A Run of its own, for the run page (its attempts' table).
		req, err := http.NewRequest(http.MethodPost, base+"/triggers/"+nightly+"/run", strings.NewReader(url.Values{"csrf": {session}, "request": {"r-run-page"}}.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err = c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		runPage := resp.Header.Get("Location")
		if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(runPage, "/runs/") {
			t.Fatalf("run now of demo/nightly: %d to %q, want 303 to its run page", resp.StatusCode, runPage)
		}
		for _, l := range []string{"en", "zh"} {
			_, page := fetch(http.MethodGet, runPage+"?lang="+l, nil)
			pages = append(pages, consolePage{"a queued run's page (" + l + ")", page, nil})
			_, page = fetch(http.MethodGet, "/triggers?lang="+l, nil)
			pages = append(pages, consolePage{"the triggers (" + l + ")", page, nil})
			_, page = fetch(http.MethodGet, "/definitions?project=demo&lang="+l, nil)
			pages = append(pages, consolePage{"definitions (" + l + ")", page, []string{"%s apply"}})
			_, page = fetch(http.MethodPost, "/definitions/preview?lang="+l, url.Values{"csrf": {session}, "yaml": {file}})
			pages = append(pages, consolePage{"definitions preview (" + l + ")", page, nil})
			st, page := fetch(http.MethodGet, "/secrets?lang="+l, nil)
			if st != http.StatusOK || !strings.Contains(page, `id="sec-form"`) {
				t.Fatalf("the secrets page (%s): %d, want 200 with its form:\n%s", l, st, page)
			}
			pages = append(pages, consolePage{"secrets (" + l + ")", page, nil})
			st, page = fetch(http.MethodGet, "/scripts?lang="+l, nil)
			if st != http.StatusOK || !strings.Contains(page, `id="scr-upload"`) {
				t.Fatalf("the scripts page (%s): %d, want 200 with its upload form:\n%s", l, st, page)
			}
			pages = append(pages, consolePage{"scripts (" + l + ")", page, nil})
			_, page = fetch(http.MethodGet, "/triggers/"+nightly+"?lang="+l, nil)
			if !strings.Contains(page, `id="warning-trig.warn.backlog.behind"`) {
				t.Fatalf("nightly's page (%s) warns of no backlog behind demo/slowly:\n%s", l, page)
			}
			pages = append(pages, consolePage{"trigger with a ledger hint and a backlog (" + l + ")", page,
				[]string{"<code>%s triggers show demo/nightly --ledger " + fmt.Sprint(view.MaxLedgerShown) + " --data-dir " + dir + "</code>"}})
			// The command that enables off names it by its project and
			// name, and reaches this server's database, in both languages:
			// the store's refusal names it by its id, which no page shows.
			enable := "<code>%s triggers enable demo/off --data-dir " + dir + "</code>"
			st, page = fetch(http.MethodPost, "/triggers/"+off+"/run?lang="+l, url.Values{"csrf": {session}, "request": {"r-" + l}})
			if st != http.StatusConflict {
				t.Fatalf("run now of a disabled trigger (%s): %d, want 409:\n%s", l, st, page)
			}
			pages = append(pages, consolePage{"refusal of a run now of a disabled trigger (" + l + ")", page, []string{enable, "<code>%s apply -f FILE</code>"}})
			_, page = fetch(http.MethodGet, "/triggers/not-a-trigger?lang="+l, nil)
			pages = append(pages, consolePage{"refusal of a trigger id that is none (" + l + ")", page, []string{"<code>%s triggers list -o json</code>"}})
			_, page = fetch(http.MethodGet, "/runs/not-a-run?lang="+l, nil)
			pages = append(pages, consolePage{"refusal of a run id that is none (" + l + ")", page, []string{"<code>%s runs list</code>"}})
			// The workers address, which a single-node server's nav does
			// not offer, says where the commands run, and where running
			// them on other machines belongs: the cluster profile on the
			// full ql binary, which serves one, else that binary.
			st, page = fetch(http.MethodGet, "/workers?lang="+l, nil)
			title := map[string]string{"en": "<h1>Where commands run</h1>", "zh": "<h1>命令在哪里执行</h1>"}[l]
			elsewhere := map[bool]map[string]string{
				true:  {"en": "belong to the cluster profile", "zh": "属于集群配置"},
				false: {"en": "Running commands on other machines takes the full ql binary.", "zh": "要在其他机器上执行命令，需要完整版的 ql 程序。"},
			}[opts.Binary == "ql"][l]
			if st != http.StatusOK || !strings.Contains(page, title) || !strings.Contains(page, elsewhere) || strings.Contains(page, "%!") {
				t.Fatalf("the workers address (%s): %d, want 200 titled %q saying %q, every count in its sentence:\n%s", l, st, title, elsewhere, page)
			}
			pages = append(pages, consolePage{"the workers address (" + l + ")", page, []string{"<code>%s serve --concurrency N</code>"}})
		}
		if st, body := func() (int, string) {
			resp, err := http.Get("http://" + metricsAddr + "/metrics")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			return resp.StatusCode, string(b)
		}(); st != http.StatusOK {
			t.Fatalf("/metrics: %d", st)
		} else {
			scraped = body
		}
		return true
	}
	serveWith(t, opts, "the console's pages", ready, "--data-dir", dir, "--http-addr", addr, "--metrics-addr", metricsAddr, "--log-level", "warn", "--concurrency", "1")
	return pages, scraped
}

// The console a ql-edge server serves names ql-edge for every command it
// tells its user to run, on every page and in every refusal, in English
// and in Chinese — the sign-in page's help, the definitions page, a
// trigger's ledger hint, the refusal of a disabled trigger's run now and
// of ids that are none, the workers address — and names nothing of the
// cluster, no replica, worker or PostgreSQL, and no ql command.
func TestTheConsoleOfQlEdgeNamesOnlyQlEdgeCommandsAndNothingOfTheCluster(t *testing.T) {
	t.Parallel()
	pages, _ := consolePages(t, options())
	for _, p := range pages {
		for _, w := range p.want {
			if want := keptFlags(fmt.Sprintf(w, "ql-edge")); !strings.Contains(p.body, want) {
				t.Errorf("%s does not name %q:\n%s", p.name, want, p.body)
			}
		}
		// The workers address is the user's, typed, and its language
		// links repeat it; what the page says is the rest.
		showsNothingOfTheCluster(t, []string{"serve:", p.name}, strings.ReplaceAll(p.body, "/workers?lang=", ""), clusterWords)
	}
}

// The metrics a ql-edge server serves say nothing of the cluster in their
// help: no worker lease, worker surface or retry policy a single-node
// server does not act on, and no ql command.
func TestTheMetricsOfQlEdgeSayNothingOfTheCluster(t *testing.T) {
	t.Parallel()
	_, scraped := consolePages(t, options())
	var help []string
	for _, line := range strings.Split(scraped, "\n") {
		if strings.HasPrefix(line, "# HELP qinglong_") {
			help = append(help, line)
		}
	}
	if len(help) < 10 {
		t.Fatalf("the scrape has %d help lines of qinglong metrics:\n%s", len(help), scraped)
	}
	showsNothingOfTheCluster(t, []string{"serve:", "/metrics"}, strings.Join(help, "\n"), clusterWords)
}

// The console of the full ql binary names ql for the same commands: the
// binary is told to the console, not taken for ql-edge.
func TestTheConsoleOfTheFullQlBinaryNamesQlCommands(t *testing.T) {
	t.Parallel()
	pages, _ := consolePages(t, singlecli.Options("ql"))
	for _, p := range pages {
		for _, w := range p.want {
			if want := keptFlags(fmt.Sprintf(w, "ql")); !strings.Contains(p.body, want) {
				t.Errorf("%s does not name %q:\n%s", p.name, want, p.body)
			}
		}
		if strings.Contains(p.body, "ql-edge") {
			t.Errorf("%s of the full ql binary names ql-edge:\n%s", p.name, p.body)
		}
	}
}
