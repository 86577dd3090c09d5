package singlecli

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/view"
	"github.com/qinglong/qinglong/internal/single/server"
)

// `projects list` lists every project, however many pages of the store
// and of the API they take: it follows each page's next until the last,
// on the database and over the API, and says of no more to read.
func TestProjectsListReadsEveryPageOnTheDatabaseAndOverTheAPI(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, quietFile)
	// Projects made in one statement, named before api: more than a page
	// of them, and api past the first page.
	const made = view.ProjectListLimit + 10
	db, err := sql.Open("sqlite", server.LayoutOf(dir).DB+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(t.Context(), `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
		INSERT INTO projects (id, name, status, created_at_ms, updated_at_ms) SELECT printf('many-%05d', i), printf('aaa-%05d', i), 'active', 1, 1 FROM n`, made); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	want := make([]string, 0, made+1)
	for i := 1; i <= made; i++ {
		want = append(want, fmt.Sprintf("aaa-%05d", i))
	}
	want = append(want, "api")
	check := func(how string, code int, out, errOut string) {
		t.Helper()
		var l struct {
			Projects []struct{ Name string }
			More     bool
			Next     string
		}
		if err := json.Unmarshal([]byte(out), &l); code != 0 || err != nil {
			t.Fatalf("projects list -o json %s: %d %v %q", how, code, err, errOut)
		}
		var names []string
		for _, p := range l.Projects {
			names = append(names, p.Name)
		}
		if !slices.Equal(names, want) || l.More || l.Next != "" {
			t.Fatalf("projects list -o json %s: %d projects (more %v, next %q), want all %d in name order and none more", how, len(names), l.More, l.Next, len(want))
		}
	}
	code, out, errOut := ql(t, "projects", "list", "-o", "json", "--data-dir", dir)
	check("on the database", code, out, errOut)
	if code, out, _ := ql(t, "projects", "list", "--data-dir", dir); code != 0 || !strings.Contains(out, "\napi ") || strings.Contains(out, "there are more") {
		t.Fatalf("projects list: %d, want every project, api last, and no line saying there are more:\n%s", code, out)
	}
	t.Setenv("QL_TOKEN", newToken(t, dir, "reader", "read"))
	base := serveAPI(t, dir, "standalone")
	t.Setenv("QL_DATA_DIR", "")
	got := overAPI(t, base, "projects", "list", "-o", "json")
	check("over the API", got.code, got.out, got.err)
}
