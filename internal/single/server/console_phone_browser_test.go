package server

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/testkit/browsertest"
)

// adminPhoneInShanghai is a real browser on a phone (390×844) in
// Asia/Shanghai, signed in to a new console site in Chinese with its
// admin token, and the directory the test's screenshots go to.
func adminPhoneInShanghai(t *testing.T) (context.Context, *consoleSite, string) {
	t.Helper()
	ctx := browsertest.Start(t)
	site := startConsoleSite(t)
	dir := browsertest.ArtifactDir(t)
	browsertest.Step(t, ctx, "sign in, in Shanghai", chromedp.EmulateViewport(390, 844), browsertest.TimeZone("Asia/Shanghai"), chromedp.Navigate(site.base+"/signin?lang=zh"),
		browsertest.SignInWithToken(site.tokens[apitoken.Admin], "概览"))
	return ctx, site, dir
}
