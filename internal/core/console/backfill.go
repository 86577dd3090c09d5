package console

import (
	"net/http"
	"net/url"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// backfillMax is the most occurrences one backfill from the console
// admits: a window holding more is refused whole, so the preview's count
// is the whole of what a confirmation does.
const backfillMax = schedule.DefaultBackfillMax

// backfillRunsShown is how many of the created Runs the result links to;
// the trigger's runs list shows them all.
const backfillRunsShown = 20

// defaultBackfillWindow is the window the form offers: the day up to now,
// or less of it for a trigger firing more than backfillMax times a day.
const defaultBackfillWindow = 24 * time.Hour

// backfillForm is the backfill form: its window as typed, in the zone the
// page shows times in, and what the form posts with.
type backfillForm struct {
	Lang, CSRF, TriggerID string
	From, To, Zone        string
	Max                   int
}

// backfillData is what the backfill page shows: the trigger, the form as
// it was sent, and the refusal, the preview to confirm or the result (their
// counts, without the lists of Runs: shownBackfill).
type backfillData struct {
	T       schedule.TriggerStatus
	Form    backfillForm
	Error   string
	Preview *schedule.BackfillResult
	Done    *schedule.BackfillResult
	// Runs are the first created Runs, More how many others there are.
	Runs []string
	More int
}

// newBackfillForm is the trigger page's form for t: the last day up to
// the store's time nowMs (to the minute, so never past it), in the viewer's
// zone; for a trigger firing more often than that day holds backfillMax
// occurrences, the last whole minutes that hold no more, so the preview of
// the window offered is never refused for its size.
func newBackfillForm(r *http.Request, s *session, t schedule.TriggerStatus, nowMs int64) backfillForm {
	f := formFor(r, s, t.TriggerID)
	to := time.UnixMilli(nowMs).In(zoneOf(f.Zone)).Truncate(time.Minute)
	from := schedule.DefaultBackfillFrom(t, to.UnixMilli(), defaultBackfillWindow.Milliseconds(), time.Minute.Milliseconds(), f.Max)
	f.From, f.To = time.UnixMilli(from).In(to.Location()).Format(run.WindowLayouts[0]), to.Format(run.WindowLayouts[0])
	return f
}

// formFor is the form's fixed part for the request's page. A page in no
// known zone shows UTC and names it, so the zone the form is read in is
// the one it was shown in, whatever the browser's cookie says meanwhile.
func formFor(r *http.Request, s *session, triggerID string) backfillForm {
	zone := viewerZone(r)
	if zone == "" {
		zone = "UTC"
	}
	return backfillForm{Lang: lang(r), CSRF: s.csrf, TriggerID: triggerID, Zone: zone, Max: backfillMax}
}

// backfillPreview shows what the backfill of the form's window would do
// (a dry run of it: the same transaction, rolled back) with a button to
// confirm it.
func (c *Console) backfillPreview(w http.ResponseWriter, r *http.Request, s *session) {
	c.backfillStep(w, r, s, true)
}

// backfill admits the confirmed window's occurrences that have no Run and
// shows what it did, with links to the new Runs.
func (c *Console) backfill(w http.ResponseWriter, r *http.Request, s *session) {
	c.backfillStep(w, r, s, false)
}

func (c *Console) backfillStep(w http.ResponseWriter, r *http.Request, s *session, dry bool) {
	if c.cfg.Manual == nil {
		c.fail(w, r, s, qlerror.New(qlerror.FailedPrecondition, "this server's store cannot backfill triggers; use `ql triggers backfill`").Because(refusalCannotBackfill))
		return
	}
	id := r.PathValue("id")
	t, err := c.cfg.Detail.TriggerDetail(r.Context(), id, 1)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	d := backfillData{T: t.TriggerStatus, Form: formFor(r, s, id)}
	d.Form.From, d.Form.To = r.PostFormValue("from"), r.PostFormValue("to")
	req, err := backfillRequest(d.Form, s.actor(r))
	var res schedule.BackfillResult
	if err == nil {
		req.TriggerID, req.DryRun = id, dry
		res, err = c.cfg.Manual.TriggerBackfill(r.Context(), req)
		err = c.pinRefusal(r.Context(), t.TriggerStatus, c.disabledRefusal(t.TriggerStatus, err))
	}
	status := http.StatusOK
	switch {
	case err != nil && (statusOf(err) == http.StatusInternalServerError || statusOf(err) == http.StatusNotFound || outOfTime(r, err)):
		// No trigger to show the form of, or nothing the form can mend.
		c.fail(w, r, s, err)
		return
	case err != nil:
		status, d.Error = statusOf(err), c.formError(lang(r), err)
	case dry:
		// Shown by a GET, as the result is: Back from the result leads
		// here, and a POST's answer would ask to send the form again.
		d.Preview = shownBackfill(res)
		c.redirectWith(w, r, s, "/triggers/"+url.PathEscape(id), flash{Page: "backfill", Data: d})
		return
	default:
		d.Runs = res.RunIDs[:min(len(res.RunIDs), backfillRunsShown)]
		d.More = len(res.RunIDs) - len(d.Runs)
		d.Done = shownBackfill(res)
		c.redirectWith(w, r, s, "/triggers/"+url.PathEscape(id), flash{Page: "backfill", Data: d})
		return
	}
	c.render(w, r, status, "backfill", s, d)
}

// shownBackfill is res as its page shows it: counts and bounds, without
// the lists of Runs (the page lists backfillData.Runs, the first of them),
// so that the result of the largest backfill fits in the cookie that takes
// it to its page as well as the smallest's.
func shownBackfill(res schedule.BackfillResult) *schedule.BackfillResult {
	res.RunIDs, res.ExistingRunIDs = nil, nil
	return &res
}

// backfillRequest is the form's window read in its zone, refused whole
// when it holds more than the console's cap.
func backfillRequest(f backfillForm, actor string) (schedule.BackfillRequest, error) {
	if f.From == "" || f.To == "" {
		return schedule.BackfillRequest{}, qlerror.New(qlerror.Invalid, "give both bounds of the window, from and to, as a date and time like 2026-11-30T08:00").Because(refusalBackfillBounds)
	}
	from, err := parseLocal("from", f.From, f.Zone)
	if err != nil {
		return schedule.BackfillRequest{}, err
	}
	to, err := parseLocal("to", f.To, f.Zone)
	if err != nil {
		return schedule.BackfillRequest{}, err
	}
	return schedule.BackfillRequest{FromMs: from, ToMs: to, Max: f.Max, RefuseOverMax: true, Actor: actor, Names: schedule.BackfillNames{From: "from", To: "to"}}, nil
}
