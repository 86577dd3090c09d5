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
// in the store's order, which is stable (by trigger id): it reads
// every match, a store page of triggersPage at a time, to count them, as
// the overview reads every trigger for its next fires, and keeps only the
// rows of the page asked for. A page past the last shows the last one, so
// a page left open while triggers went (the last ones deleted, a batch
// disable under a search) still lists what there is.
func (c *Console) triggerPage(ctx context.Context, p schedule.TriggerListParams, n int) ([]schedule.TriggerStatus, triggersAt, error) {
	p.Limit, p.After = triggersPage, ""
	var shown, last []schedule.TriggerStatus
	at := triggersAt{Page: n}
	for {
		list, next, err := c.cfg.Triggers.TriggerList(ctx, p)
		if err != nil {
			return nil, triggersAt{}, err
		}
		for _, t := range list {
			on := at.Total/triggersShown + 1
			if on == n {
				shown = append(shown, t)
			}
			if at.Total%triggersShown == 0 {
				last = last[:0]
			}
			last = append(last, t)
			at.Total++
		}
		if next == "" {
			break
		}
		p.After = next
	}
	at.Pages = (at.Total + triggersShown - 1) / triggersShown
	if n > at.Pages {
		shown, at.Page = last, max(at.Pages, 1)
	}
	if len(shown) > 0 {
		at.From = (at.Page-1)*triggersShown + 1
		at.To = at.From + len(shown) - 1
	}
	return shown, at, nil
}
