package console

import (
	"context"
	"net/url"
	"strconv"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// triggersAt is where a page of the triggers list is among the triggers
// its filters match: its number (1 the first), the place of its first
// and last rows (1 the first), how many match, and how many pages they
// make.
type triggersAt struct {
	Page, From, To, Total, Pages int
}

// href is the list's page n with the project and search filters, ""
// when the list has no page n.
func (a triggersAt) href(n int, project, q string) string {
	if n < 1 || n > a.Pages {
		return ""
	}
	v := url.Values{"page": {strconv.Itoa(n)}}
	for k, x := range map[string]string{"project": project, "q": q} {
		if x != "" {
			v.Set(k, x)
		}
	}
	return "/triggers?" + v.Encode()
}

// pageNumber is the list's ?page=: a page number, 1 when it is none (a
// first visit, or an address typed wrong), which shows the first page
// rather than refuse one.
func pageNumber(v string) int {
	if n, err := strconv.Atoi(v); err == nil && n > 0 {
		return n
	}
	return 1
}

// triggerPage is page n (triggersShown rows) of the triggers p matches,
// in the store's order, which is stable (by trigger id), and where it is
// among them. The count and the rows are read from one snapshot of the
// store (TriggerSnapshot), so they agree whatever is published or deleted
// meanwhile: the store counts the matches in one statement, and the list
// is read up to the page asked for, a store page of at most triggersPage
// at a time, so that a view reads the rows of its page and those before
// it, never every match. A page past the last shows the last one, so a
// page left open while triggers went (the last ones deleted, a batch
// disable under a search) still lists what there is.
func (c *Console) triggerPage(ctx context.Context, p schedule.TriggerListParams, n int) ([]schedule.TriggerStatus, triggersAt, error) {
	var shown []schedule.TriggerStatus
	var at triggersAt
	err := c.cfg.Triggers.TriggerSnapshot(ctx, func(r schedule.StatusCounter) error {
		var err error
		shown, at, err = pageOf(ctx, r, p, n)
		return err
	})
	if err != nil {
		return nil, triggersAt{}, err
	}
	return shown, at, nil
}

// pageOf is triggerPage through r, whose count and listings read one
// snapshot: the count is how many rows its pages walk to.
func pageOf(ctx context.Context, r schedule.StatusCounter, p schedule.TriggerListParams, n int) ([]schedule.TriggerStatus, triggersAt, error) {
	total, err := r.TriggerCount(ctx, p)
	if err != nil {
		return nil, triggersAt{}, err
	}
	at := triggersAt{Total: total, Pages: pagesOf(total)}
	at.Page = min(n, max(at.Pages, 1))
	skip, want := (at.Page-1)*triggersShown, at.Page*triggersShown
	var shown []schedule.TriggerStatus
	read := 0
	p.After = ""
	for read < want {
		p.Limit = min(triggersPage, want-read)
		list, next, err := r.TriggerList(ctx, p)
		if err != nil {
			return nil, triggersAt{}, err
		}
		for _, t := range list {
			if read >= skip {
				shown = append(shown, t)
			}
			read++
		}
		if next == "" {
			break
		}
		p.After = next
	}
	if len(shown) > 0 {
		at.From, at.To = skip+1, skip+len(shown)
	}
	return shown, at, nil
}

// pagesOf is how many pages of the triggers list total triggers make.
func pagesOf(total int) int {
	return (total + triggersShown - 1) / triggersShown
}
