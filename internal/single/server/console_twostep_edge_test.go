package server

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

var (
	// twoStepErrorHTML is the account page's two-step error, its
	// commands in code elements.
	twoStepErrorHTML = regexp.MustCompile(`id="two-step-error">(.*?)</p>`)
	// tags are the elements of a sentence shown as HTML.
	tags = regexp.MustCompile(`<[^>]+>`)
)

// On ql-edge, a two-step refusal that names a command names ql-edge's,
// in English and in Chinese: a user turning their own two-step off while
// every user must have it is told to have it reset with `ql-edge users
// reset-two-step NAME`.
func TestTheTwoStepRefusalsOfQlEdgeNameItsCommands(t *testing.T) {
	t.Parallel()
	s := startTwoStepSiteConfigured(t, func(c *Config) { c.Binary = "ql-edge" })
	s.requireTwoStep(t, true)
	c, csrf, _ := s.signInWithCode(t)
	for _, lang := range []string{"en", "zh"} {
		resp, body := httpcall.Form(t, c, http.MethodPost, s.base+"/account/two-step/off?lang="+lang, url.Values{"csrf": {csrf}, "code": {s.code(t, 0)}})
		m := twoStepErrorHTML.FindStringSubmatch(body)
		if resp.StatusCode != http.StatusConflict || m == nil {
			t.Fatalf("turning one's own off while it is required (%s): %d\n%s", lang, resp.StatusCode, body)
		}
		if msg := html.UnescapeString(tags.ReplaceAllString(m[1], "")); !strings.Contains(msg, "ql-edge users reset-two-step NAME") || strings.Contains(msg, "ql users") {
			t.Errorf("the refusal on ql-edge (%s) names another binary's command: %q", lang, msg)
		}
	}
}
