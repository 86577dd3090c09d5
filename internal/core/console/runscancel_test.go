package console

import (
	"context"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// canCancel is a console whose server cancels Runs as its store does.
func canCancel(cfg *Config) {
	cfg.Cancel = cfg.Runs.(interface {
		CancelRun(ctx context.Context, runID, actor string) (run.Run, run.CancelEffect, error)
	}).CancelRun
}

// queuedRuns admits n Runs of trigger a now and returns their ids.
func (b *batchSite) queuedRuns(t *testing.T, n int) []string {
	t.Helper()
	var out []string
	for range n {
		res, err := b.st.TriggerRunNow(t.Context(), schedule.RunNowRequest{TriggerID: b.triggers["a"], RequestID: ids.New(), Force: true, Actor: "test"})
		if err != nil || res.RunID == "" {
			t.Fatalf("run now: %+v, %v", res, err)
		}
		out = append(out, res.RunID)
	}
	return out
}

// state is Run id's state in the store.
func (b *batchSite) state(t *testing.T, id string) run.State {
	t.Helper()
	d, err := b.st.RunGet(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return d.Run.State
}

// The Runs list's cancel form cancels the Runs ticked on it and no other,
// each as its own Cancel button does (audited with the session), and
// answers with the list as it was filtered, saying in the page's language
// how many were cancelled and how many had already ended (one cancelled
// behind the page's back meanwhile).
func TestTheRunsListCancelsTheTickedRunsAndSaysHowManyHadEnded(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, canCancel)
	runs := site.queuedRuns(t, 4)
	page := html.UnescapeString(site.do(apitoken.Operate, "/runs?state=queued&lang=zh", nil).Body.String())
	for _, id := range runs {
		if !strings.Contains(page, `name="id" value="`+id+`" form="runs-batch"`) {
			t.Fatalf("the list offers no box for queued Run %s:\n%s", id, page)
		}
	}
	for _, want := range []string{`action="/runs/cancel" id="runs-batch"`, `<input type="hidden" name="state" value="queued">`, "取消所勾选的运行…", "确认取消所勾选的运行"} {
		if !strings.Contains(page, want) {
			t.Errorf("the list's cancel form lacks %q", want)
		}
	}
	if _, _, err := site.st.CancelRun(t.Context(), runs[2], "elsewhere"); err != nil {
		t.Fatal(err)
	}
	form := url.Values{"id": {runs[0], runs[1], runs[2]}, "state": {"queued"}, "do": {"cancel"}}
	w := site.send(apitoken.Operate, "/runs/cancel?lang=zh", form)
	to := w.Header().Get("Location")
	if w.Code != http.StatusSeeOther || !strings.HasPrefix(to, "/runs?state=queued&flash=") {
		t.Fatalf("the cancel answered %d to %q; want 303 to the list as it was filtered", w.Code, to)
	}
	if said := html.UnescapeString(site.send(apitoken.Operate, to+"&lang=zh", nil).Body.String()); !strings.Contains(said, "取消所勾选的 3 个运行：已取消 2 个；1 个此前已经结束。") {
		t.Errorf("the answer does not say two were cancelled and one had ended:\n%s", said)
	}
	said := html.UnescapeString(site.do(apitoken.Operate, "/runs/cancel?lang=zh", url.Values{"id": {runs[0]}, "state": {"queued"}}).Body.String())
	if !strings.Contains(said, "取消所勾选的 1 个运行：已取消 0 个；1 个此前已经结束。") {
		t.Errorf("a second cancel of a cancelled Run does not say it had ended:\n%s", said)
	}
	for i, want := range []run.State{run.Cancelled, run.Cancelled, run.Cancelled, run.Queued} {
		if got := site.state(t, runs[i]); got != want {
			t.Errorf("Run %d is %s after the cancel; want %s", i, got, want)
		}
	}
	if d, err := site.st.RunGet(t.Context(), runs[0]); err != nil || !strings.Contains(eventsActors(d), "console:token:web-operate") {
		t.Errorf("the cancel of Run 0 is not audited with the console session: %v %v", eventsActors(d), err)
	}
	w = site.send(apitoken.Operate, "/runs/cancel", url.Values{"id": {runs[3]}, "project": {"shop"}, "state": {"queued"}})
	flashed := html.UnescapeString(site.send(apitoken.Operate, w.Header().Get("Location"), nil).Body.String())
	if !strings.Contains(flashed, "Cancel of 1 ticked Runs: 1 cancelled, 0 had already ended.") || !strings.Contains(w.Header().Get("Location"), "project=shop") {
		t.Errorf("the English answer to %q does not say the Run was cancelled:\n%s", w.Header().Get("Location"), flashed)
	}
}

// eventsActors are the actors of Run d's events, joined.
func eventsActors(d run.Detail) string {
	var out []string
	for _, e := range d.Events {
		out = append(out, e.Payload)
	}
	return strings.Join(out, " ")
}

// A cancel form with no Run ticked, or more than a page of them, is
// refused in the page's language, cancelling nothing; a read session is
// offered no boxes and refused the form; a form without the session's
// CSRF value is refused; a server that cannot cancel refuses it in the
// single Run's words.
func TestTheRunsListsCancelFormRefusesWhatItCannotDo(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, canCancel)
	runs := site.queuedRuns(t, 1)
	if w := site.do(apitoken.Operate, "/runs/cancel?lang=zh", url.Values{}); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "没有勾选任何运行") {
		t.Errorf("no Run ticked: %d\n%s", w.Code, w.Body.String())
	}
	many := url.Values{}
	for range maxRunsCancel + 1 {
		many.Add("id", ids.New())
	}
	many.Add("id", runs[0])
	if w := site.do(apitoken.Operate, "/runs/cancel", many); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "one form cancels at most 50") {
		t.Errorf("%d Runs ticked: %d\n%s", len(many["id"]), w.Code, w.Body.String())
	}
	if page := site.do(apitoken.Read, "/runs", nil).Body.String(); strings.Contains(page, "runs-batch") {
		t.Errorf("a read session is offered the cancel form:\n%s", page)
	}
	if w := site.do(apitoken.Read, "/runs/cancel", url.Values{"id": {runs[0]}}); w.Code != http.StatusForbidden {
		t.Errorf("a read session's cancel: %d; want 403", w.Code)
	}
	for _, csrf := range []string{"", "not-the-sessions"} {
		req := httptest.NewRequest(http.MethodPost, "/runs/cancel", strings.NewReader(url.Values{"id": {runs[0]}, "csrf": {csrf}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: string(apitoken.Operate)})
		w := httptest.NewRecorder()
		site.c.ServeHTTP(w, req)
		if w.Code != http.StatusForbidden {
			t.Errorf("a cancel with the CSRF value %q: %d; want 403", csrf, w.Code)
		}
	}
	if got := site.state(t, runs[0]); got != run.Queued {
		t.Fatalf("Run is %s after forms refused; want it queued", got)
	}
	cannot := newBatchSite(t, nil)
	if w := cannot.do(apitoken.Operate, "/runs/cancel", url.Values{"id": {runs[0]}}); w.Code != http.StatusConflict || !strings.Contains(w.Body.String(), "this server cannot cancel runs") {
		t.Errorf("a server that cannot cancel: %d\n%s", w.Code, w.Body.String())
	}
}
