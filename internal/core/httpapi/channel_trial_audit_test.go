package httpapi

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/single/sqlitestore"
	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// channelTrialSite is an API on a real store holding project alpha, whose
// channel ops answers 200, with an operate token's value; the test
// messages are recorded in record.
func channelTrialSite(t *testing.T, record func(st *sqlitestore.Store) audit.Appender) (h http.Handler, st *sqlitestore.Store, projectID, operator string) {
	t.Helper()
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	t.Cleanup(ok.Close)
	st = sqlitetest.OpenAt(t, filepath.Join(t.TempDir(), "ql.db"), func() int64 { return time.Now().UnixMilli() })
	projectID = ids.New()
	spec := notify.Spec{Channels: []notify.Channel{{Name: "ops", Kind: notify.Webhook, URL: ok.URL}}}
	if _, err := st.ProjectSave(t.Context(), project.Project{ID: projectID, Name: "alpha", Status: project.Active, Notifications: spec.Encode()}); err != nil {
		t.Fatal(err)
	}
	operator, _, err := apitoken.Create(t.Context(), st, "tester", ids.New(), "ci", apitoken.Operate, 0)
	if err != nil {
		t.Fatal(err)
	}
	h = NewHandler(Config{Runs: st, Triggers: st, Detail: st, Export: st, Tokens: st, Audit: st, TryChannel: notify.NewDeliverer(notify.DeliveryConfig{}).Try, ChannelTests: record(st),
		Ready: func() (bool, string) { return true, "" }, Log: slog.New(slog.DiscardHandler)})
	return h, st, projectID, operator
}

// A channel's test over the API is recorded in the audit trail: the
// token and its address as who asked, the channel under its project, and
// the outcome.
func TestAChannelTestOverTheAPIIsRecordedWithWhoAskedAndHowItWent(t *testing.T) {
	t.Parallel()
	h, st, _, operator := channelTrialSite(t, func(st *sqlitestore.Store) audit.Appender { return st })
	if p := send(t, h, http.MethodPost, "/api/v1/projects/alpha/notifications/channels/ops/test", "localhost", operator, "{}"); p.status != http.StatusOK {
		t.Fatalf("test of ops: %+v; want 200", p)
	}
	page, err := st.AuditList(t.Context(), audit.Query{Action: audit.ChannelTested, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Records) != 1 {
		t.Fatalf("the trail holds %d channel tests; want the one", len(page.Records))
	}
	r := page.Records[0]
	if !strings.HasPrefix(r.Actor, "api:ci@") || r.ObjectKind != audit.KindChannel || r.ObjectName != "ops" || r.Project != "alpha" || r.Note != "delivered, HTTP 200" {
		t.Fatalf("the test's record %+v; want api:ci@… testing channel ops of alpha, delivered, HTTP 200", r)
	}
}

// A test whose record the trail cannot take is answered 503
// audit_not_recorded, saying how the test went all the same.
func TestAChannelTestWhoseRecordFailsStillSaysHowItWent(t *testing.T) {
	t.Parallel()
	h, _, _, operator := channelTrialSite(t, func(*sqlitestore.Store) audit.Appender {
		closed := sqlitetest.OpenAt(t, filepath.Join(t.TempDir(), "other.db"), func() int64 { return time.Now().UnixMilli() })
		if err := closed.Close(); err != nil {
			t.Fatal(err)
		}
		return closed
	})
	p := send(t, h, http.MethodPost, "/api/v1/projects/alpha/notifications/channels/ops/test", "localhost", operator, "{}")
	if p.status != http.StatusServiceUnavailable || p.reason != string(audit.RefusalNotRecorded) || !strings.Contains(p.message, "channel ops of project alpha went: delivered, HTTP 200") {
		t.Fatalf("a test whose record could not be written: %+v; want 503 %s saying it was delivered", p, audit.RefusalNotRecorded)
	}
}

// The test route takes a project's id as the pause routes do: the
// project that has it; an id no project has is 404 project_missing.
func TestTheChannelTestRouteTakesAProjectsID(t *testing.T) {
	t.Parallel()
	h, _, projectID, operator := channelTrialSite(t, func(st *sqlitestore.Store) audit.Appender { return st })
	if p := send(t, h, http.MethodPost, "/api/v1/projects/"+strings.ToUpper(projectID)+"/notifications/channels/ops/test", "localhost", operator, "{}"); p.status != http.StatusOK {
		t.Fatalf("test of ops by alpha's id: %+v; want 200", p)
	}
	if p := send(t, h, http.MethodPost, "/api/v1/projects/"+ids.New()+"/notifications/channels/ops/test", "localhost", operator, "{}"); p.status != http.StatusNotFound || p.reason != string(catalog.RefusalProjectMissing) || !strings.Contains(p.message, "alpha") {
		t.Fatalf("test by an id no project has: %+v; want 404 project_missing naming alpha", p)
	}
}
