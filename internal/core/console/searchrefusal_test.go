package console

import (
	"html"
	"net/http"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// pageError is what the page's error paragraph of id says, unescaped.
func pageError(body, id string) string {
	_, said, _ := strings.Cut(html.UnescapeString(body), `id="`+id+`">`)
	said, _, _ = strings.Cut(said, "</p>")
	return said
}

// A Chinese Triggers page refuses a search over schedule.MaxSearch bytes
// in Chinese, naming the limit; an English page keeps the store's own
// sentence.
func TestAnOverLongTriggerSearchIsSaidInThePagesLanguage(t *testing.T) {
	t.Parallel()
	site := newBatchSite(t, nil)
	long := strings.Repeat("x", schedule.MaxSearch+1)
	cases := []struct{ path, id, zh, en string }{
		{"/triggers?q=" + long, "triggers-error", "201 字节，最多 200 字节", "trigger search is 201 bytes, over the 200 allowed"},
	}
	for _, c := range cases {
		for l, want := range map[string]string{"zh": c.zh, "en": c.en} {
			w := site.do(apitoken.Read, c.path+"&lang="+l, nil)
			said := pageError(w.Body.String(), c.id)
			if w.Code != http.StatusBadRequest || !strings.Contains(said, want) {
				t.Errorf("%s %s: %d saying %q, want 400 saying %q", l, c.path[:min(len(c.path), 30)], w.Code, said, want)
			}
			if l == "zh" && strings.Contains(said, "trigger") {
				t.Errorf("zh %s: the refusal is in English: %q", c.path[:min(len(c.path), 30)], said)
			}
		}
	}
}
