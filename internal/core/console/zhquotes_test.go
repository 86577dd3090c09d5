package console

import (
	"regexp"
	"testing"
)

// The Chinese text quotes a character as the field help does, “-”, never
// with ASCII apostrophes ('-'): a name rule's refusal reads the same way
// as the help beside the field it refuses.
func TestChineseTextQuotesCharactersWithChineseQuotationMarks(t *testing.T) {
	t.Parallel()
	apostrophes := regexp.MustCompile(`'[^'\s]{1,3}'`)
	for key, s := range messages["zh"] {
		if m := apostrophes.FindString(s); m != "" {
			t.Errorf("word %s quotes %s with apostrophes: %q", key, m, s)
		}
	}
	for reason, s := range refusals["zh"] {
		if m := apostrophes.FindString(s); m != "" {
			t.Errorf("refusal %s quotes %s with apostrophes: %q", reason, m, s)
		}
	}
}
