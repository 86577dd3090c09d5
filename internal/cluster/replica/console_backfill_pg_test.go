package replica

import (
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// consoleBackfill previews the backfill of the last three hours of the
// hourly trigger at path on a replica's console, whose page is page, then
// confirms it: the runtime role's dry run counts its three occurrences and
// creates none, and the confirmation creates the three Runs.
func consoleBackfill(t *testing.T, c *http.Client, base, path, page string) {
	t.Helper()
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page)
	if m == nil || !strings.Contains(page, `id="backfill-form"`) {
		t.Fatalf("the trigger page on a replica should offer the backfill form:\n%s", page)
	}
	const local = "2006-01-02T15:04"
	now := time.Now().UTC()
	form := url.Values{"csrf": {m[1]}, "from": {now.Add(-3 * time.Hour).Format(local)}, "to": {now.Add(-time.Minute).Format(local)}}
	post := func(step string) string {
		t.Helper()
		resp, err := c.PostForm(base+path+step, form)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s on a replica: %d\n%s", step, resp.StatusCode, b)
		}
		return string(b)
	}
	if page := post("/backfill/preview"); !strings.Contains(page, `id="backfill-count">3<`) || !strings.Contains(page, `id="backfill-new">3<`) {
		t.Fatalf("the preview on a replica does not count three occurrences to create:\n%s", page)
	}
	if page := post("/backfill/preview"); !strings.Contains(page, `id="backfill-new">3<`) {
		t.Fatalf("a second preview on a replica finds runs the first created:\n%s", page)
	}
	if page := post("/backfill"); !strings.Contains(page, `id="backfill-done"`) || strings.Count(page, `<li><a href="/runs/`) != 3 {
		t.Fatalf("the backfill on a replica did not create and link three runs:\n%s", page)
	}
}
