package console

import (
	"context"
	"strings"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// refusalTriggerTitleAmbiguous is a Runs filter naming no trigger whose
// text is in the display title of several: one must be chosen.
const refusalTriggerTitleAmbiguous qlerror.Reason = "console_trigger_title_ambiguous"

// titlesShown bounds the triggers a filter matching several titles lists.
const titlesShown = 5

// triggerByTitle is the trigger (of projectID, when given) whose display
// title holds text, ignoring case, as the Triggers page's search finds a
// title: the Runs filter takes a title where no trigger has text as its
// name. ok is false when none does; several are refused, naming them.
// The store searches the titles alone, so triggers whose names or
// commands hold text never crowd the title's trigger out of the page.
func (c *Console) triggerByTitle(ctx context.Context, projectID, text string) (id string, ok bool, err error) {
	if len(text) > schedule.MaxSearch {
		return "", false, nil
	}
	found, _, err := c.cfg.Triggers.TriggerList(ctx, schedule.TriggerListParams{ProjectID: projectID, Limit: titlesShown + 1, Search: text, TitlesOnly: true})
	if err != nil {
		return "", false, err
	}
	switch len(found) {
	case 0:
		return "", false, nil
	case 1:
		return found[0].TriggerID, true, nil
	}
	names := make([]string, 0, len(found))
	for _, t := range found[:min(len(found), titlesShown)] {
		names = append(names, t.ProjectName+"/"+t.Name+" ("+t.Title+")")
	}
	example := found[0].ProjectName + "/" + found[0].Name
	return "", false, qlerror.New(qlerror.Invalid, "the titles of several triggers hold %q: %s; write one's project/name, e.g. %s", text, strings.Join(names, ", "), example).
		Because(refusalTriggerTitleAmbiguous, "text", text, "triggers", strings.Join(names, ", "), "example", example)
}
