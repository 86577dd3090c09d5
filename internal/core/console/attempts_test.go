package console

import (
	"bytes"
	"html"
	"html/template"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/run"
)

// runPage renders the Run page in l for a failed Run whose one attempt
// ended with code and msg.
func runPage(t *testing.T, l, code, msg string) string {
	t.Helper()
	exit := int64(3)
	d := run.Detail{Run: run.Run{ID: "r1", State: run.Failed},
		Attempts: []run.Attempt{{Number: 1, State: run.AttemptFailed, ExitCode: &exit, ErrorCode: code, ErrorMessage: msg}}}
	var buf bytes.Buffer
	if err := parseTemplates("ql", "")["run"].ExecuteTemplate(&buf, "layout", page{Lang: l, Data: map[string]any{"D": d}}); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// An attempt's message is shown on its row in every language, beside the
// sentence a Chinese page gives for its code, not only on hover (a phone
// has none); escaped, as the worker or the command's end wrote it.
func TestAFailedAttemptsMessageIsShownInEveryLanguage(t *testing.T) {
	msg := `the worker refused: <b>run-as</b> "nobody" is not a user`
	esc := template.HTMLEscapeString(msg)
	zh := runPage(t, "zh", process.ErrorCodeRunAs, msg)
	if want := `<span class="error-why">命令未能启动：runAs 指定的用户不可用</span> <code class="error-code">run_as_unavailable</code><div class="attempt-message">` + esc + `</div>`; !strings.Contains(zh, want) {
		t.Errorf("the Chinese page does not show the attempt's message under its sentence; want %s in:\n%s", want, zh)
	}
	if en := runPage(t, "en", process.ErrorCodeRunAs, msg); !strings.Contains(en, ` — `+esc+`</td>`) {
		t.Errorf("the English page does not show the attempt's message:\n%s", en)
	}
	for _, p := range []string{zh, runPage(t, "en", process.ErrorCodeRunAs, msg)} {
		if strings.Contains(p, "<b>") || strings.Contains(p, `title="`+esc) {
			t.Errorf("the message is shown unescaped, or in a title:\n%s", p)
		}
	}
}

// A long message (a worker's refusal runs to a thousand characters) shows
// its first words, cut at a space, on a line of its own of a phone's card,
// and the whole of it on a tap.
func TestALongAttemptMessageShowsItsFirstWordsAndTheRestOnATap(t *testing.T) {
	msg := "the worker refused the command: " + strings.Repeat("its digest & the grant's differ ", 32) + "<end>"
	for _, l := range []string{"zh", "en"} {
		p := runPage(t, l, process.ErrorCodeSignaled, msg)
		const fold = `<div class="attempt-message"><details class="error-full"><summary><span>`
		start := strings.Index(p, fold)
		if start < 0 {
			t.Fatalf("%s: a %d-character message is not folded:\n%s", l, len(msg), p)
		}
		shown, rest, ok := strings.Cut(p[start+len(fold):], `…</span></summary>`)
		shown = html.UnescapeString(shown)
		if !ok || len([]rune(shown)) > messageShown || len([]rune(shown)) < messageShown*3/4 || !strings.HasPrefix(msg, shown+" ") {
			t.Errorf("%s: the folded message shows %q; want its first words up to about %d characters, cut at a space", l, shown, messageShown)
		}
		if !strings.HasPrefix(rest, template.HTMLEscapeString(msg)+`</details>`) {
			t.Errorf("%s: the whole message is not behind the fold, escaped:\n%s", l, rest)
		}
	}
	if clipMessage(strings.Repeat("é", messageShown)) != "" || clipMessage(strings.Repeat("x", messageShown+1)) != strings.Repeat("x", messageShown)+"…" {
		t.Error("a message of messageShown characters is folded, or a longer one without a space is not cut at the limit")
	}
}

// An attempt not started yet says where it is, in both languages: waiting
// to be started while its Run is queued or waits to retry, granted to a
// worker while its Run is dispatching (a cluster's grant), never a bare
// "claimed" that reads as taken while it waits.
func TestAnUnstartedAttemptSaysWhetherItWaitsOrWasGrantedToAWorker(t *testing.T) {
	for _, c := range []struct {
		state  run.State
		en, zh string
	}{
		{run.Queued, "waiting to start", "等待启动"},
		{run.RetryWait, "waiting to start", "等待启动"},
		{run.Dispatching, "granted to a worker, not started yet", "已交给执行节点，尚未启动"},
	} {
		d := run.Detail{Run: run.Run{ID: "r1", State: c.state}, Attempts: []run.Attempt{{Number: 1, State: run.AttemptClaimed}}}
		for l, want := range map[string]string{"en": c.en, "zh": c.zh} {
			var buf bytes.Buffer
			if err := parseTemplates("ql", "")["run"].ExecuteTemplate(&buf, "layout", page{Lang: l, Data: map[string]any{"D": d}}); err != nil {
				t.Fatal(err)
			}
			if cell := `class="attempt-state">` + want + `</td>`; !strings.Contains(buf.String(), cell) {
				t.Errorf("%s, a claimed attempt of a %s Run: want %s in:\n%s", l, c.state, cell, buf.String())
			}
		}
	}
}

// An English page words every attempt state as the API's stateText and
// `ql runs show` do, so the console and the command line never say one
// attempt two ways.
func TestAnEnglishPageWordsAnAttemptsStateAsTheAPIDoes(t *testing.T) {
	for _, rs := range run.States {
		for _, a := range run.AttemptStates {
			if got, want := attemptState("en", rs, a), run.AttemptStateText(rs, a); got != want {
				t.Errorf("an attempt %s of a %s Run: the page says %q, the API %q", a, rs, got, want)
			}
		}
	}
}
