package validate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// A display title holding a text-direction character (a mark, an
// embedding, an override, an isolate) is refused naming it: shown in a
// notification's plain text, an email's subject or a listing, U+202E
// would show the name and the outcome written after the title reversed
// ("deliaf" for "failed"). Right-to-left text itself is a title like any
// other.
func TestATitleHoldsNoTextDirectionCharacter(t *testing.T) {
	t.Parallel()
	for _, c := range []rune{'\u061c', '\u200e', '\u200f', '\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069'} {
		err := Title("trigger.title", "nightly "+string(c)+"report")
		char := fmt.Sprintf("%U", c)
		if qlerror.ReasonOf(err) != RefusalTitleDirection || !strings.Contains(fmt.Sprint(err), "trigger.title") || !strings.Contains(fmt.Sprint(err), char) {
			t.Errorf("a title holding %s: %v (%s); want %s naming the field and the character", char, err, qlerror.ReasonOf(err), RefusalTitleDirection)
		}
	}
	for _, ok := range []string{"نسخة احتياطية ليلية", "גיבוי לילי", "每日签到"} {
		if err := Title("trigger.title", ok); err != nil {
			t.Errorf("the title %q: %v; want it taken", ok, err)
		}
	}
}
