package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/console"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// benchRuns is how many Runs the runs list is rendered over: the page is
// a keyset range, so its cost should not grow with the table.
const benchRuns = 20_000

// BenchmarkConsoleRunsListPage renders the console's runs list (the first
// page and one deep page through the "next" cursor) over benchRuns Runs
// on SQLite, as a signed-in browser asks for it.
func BenchmarkConsoleRunsListPage(b *testing.B) {
	dir := b.TempDir()
	tg := publish(b, dir, 1, "true")
	be, err := OpenBackend(b.Context(), LayoutOf(dir).DB)
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
	now := time.Now().UnixMilli()
	res, err := be.Store.TriggerBackfill(b.Context(), schedule.BackfillRequest{TriggerID: tg[0].TriggerID, FromMs: now - benchRuns*1000 - 1000, ToMs: now - 1000, Max: benchRuns, Actor: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	if res.Admitted != benchRuns {
		b.Fatalf("seeded %d Runs, want %d", res.Admitted, benchRuns)
	}
	secret, _, err := apitoken.Create(b.Context(), be.Store, ids.New(), "bench", apitoken.Read, 0)
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(console.New(console.Config{Runs: be.Store, Triggers: be.Store, Detail: be.Store, Tokens: be.Store}))
	defer ts.Close()
	site := &consoleSite{base: ts.URL}
	c := consoleClient(b)
	site.signIn(b, c, secret)
	_, page := fetch(b, c, http.MethodGet, ts.URL+"/runs", nil)
	i := strings.Index(page, `id="next-page" href="`)
	if i < 0 {
		b.Fatal("the runs list has no next page")
	}
	next := page[i+len(`id="next-page" href="`):]
	next, _ = url.PathUnescape(strings.ReplaceAll(next[:strings.IndexByte(next, '"')], "&amp;", "&"))
	for _, p := range []struct{ name, path string }{{"first", "/runs"}, {"next", next}} {
		b.Run(p.name, func(b *testing.B) {
			for b.Loop() {
				resp, err := c.Get(ts.URL + p.path)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Fatalf("GET %s: %d", p.path, resp.StatusCode)
				}
			}
		})
	}
}
