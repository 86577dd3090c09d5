package console

import (
	"regexp"
	"strings"
	"testing"
)

var (
	// formControl is a control a person fills in or picks from, with its
	// attributes.
	formControl = regexp.MustCompile(`(?s)<(input|select|textarea)\b((?:[^>{]|\{\{.*?\}\})*)>`)
	labelFor    = regexp.MustCompile(`<label for="([^"]+)"`)
	labelBlock  = regexp.MustCompile(`(?s)<label\b[^>]*>.*?</label>`)
	controlID   = regexp.MustCompile(`\bid="([^"]+)"`)
	// unlabelled are controls no one fills in or reads as a field: hidden
	// values, buttons (their text is their name) and a text area kept
	// hidden to send a previewed file on.
	unlabelled = regexp.MustCompile(`\btype="(hidden|submit|button)"|\shidden[\s>]|\shidden$`)
)

// Every control of every page has a name a screen reader says: a <label>
// around it or naming its id, or an aria-label. A placeholder is no label:
// it is gone once something is typed, and is read as a value.
func TestEveryFormControlHasALabel(t *testing.T) {
	eachTemplate(t, func(name, page string) {
		labelled := map[string]bool{}
		for _, m := range labelFor.FindAllStringSubmatch(page, -1) {
			labelled[m[1]] = true
		}
		inLabel := map[string]bool{}
		for _, l := range labelBlock.FindAllString(page, -1) {
			for _, c := range formControl.FindAllString(l, -1) {
				inLabel[c] = true
			}
		}
		for _, m := range formControl.FindAllStringSubmatch(page, -1) {
			attrs := m[2]
			if unlabelled.MatchString(attrs) || inLabel[m[0]] || strings.Contains(attrs, `aria-label="`) {
				continue
			}
			if id := controlID.FindStringSubmatch(attrs); id != nil && labelled[id[1]] {
				continue
			}
			t.Errorf("%s: %s has no label: wrap it in a <label>, name its id in one, or give it an aria-label", name, m[0])
		}
	})
}
