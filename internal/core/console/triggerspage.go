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
// in the store's order, which is stable (by trigger id): the store counts
// the matches in one statement, and the list is read up to the page asked
// for, a store page of at most triggersPage at a time, so that a view
// reads the rows of its page and those before it, never every match. A
// page past the last shows the last one, so a page left open while
// triggers went (the last ones deleted, a batch disable under a search)
// still lists what there is. The count and the rows are two reads:
// triggers published or deleted between them can leave the count off by
// those until the next view, except where the list ran out before the
// page, which is then a count of its own.
func (c *Console) triggerPage(ctx context.Context, p schedule.TriggerListParams, n int) ([]schedule.TriggerStatus, triggersAt, error) {
	total, err := c.cfg.Triggers.TriggerCount(ctx, p)
	if err != nil {
		return nil, triggersAt{}, err
	}
	at := triggersAt{Page: min(n, max(pagesOf(total), 1))}
	skip, want := (at.Page-1)*triggersShown, at.Page*triggersShown
	var shown, last []schedule.TriggerStatus
	read, ranOut := 0, false
	p.After = ""
	for read < want && !ranOut {
		p.Limit = min(triggersPage, want-read)
		list, next, err := c.cfg.Triggers.TriggerList(ctx, p)
		if err != nil {
			return nil, triggersAt{}, err
		}
		for _, t := range list {
			if read%triggersShown == 0 {
				last = last[:0]
			}
			last = append(last, t)
			if read >= skip {
				shown = append(shown, t)
			}
			read++
		}
		ranOut, p.After = next == "", next
	}
	at.Total = max(total, read)
	if ranOut {
		at.Total = read
	}
	at.Pages = pagesOf(at.Total)
	if len(shown) == 0 {
		shown, at.Page = last, max(at.Pages, 1)
	}
	if len(shown) > 0 {
		at.From = (at.Page-1)*triggersShown + 1
		at.To = at.From + len(shown) - 1
	}
	return shown, at, nil
}

// pagesOf is how many pages of the triggers list total triggers make.
func pagesOf(total int) int {
	return (total + triggersShown - 1) / triggersShown
}
