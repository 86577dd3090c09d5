package server

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/testkit/httpcall"
)

// A trigger's page shows its misfire and overlap policies and every time
// policy it sets (jitter, startAt, endAt, catchUpWindow), each with what
// it does, in English and in Chinese, as `ql triggers show` prints them;
// a trigger that sets none shows its misfire policy and the default
// overlap policy, allow, and no time policy.
func TestConsoleTriggerPageShowsTheTriggersPolicies(t *testing.T) {
	t.Parallel()
	start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	end := time.Date(2031, 6, 30, 12, 0, 0, 0, time.UTC).UnixMilli()
	site := startConsoleSiteWith(t, trigger.Cron{Expression: "0 0 3 1 1 *", Timezone: "Asia/Shanghai", MisfirePolicy: trigger.FireOnce,
		JitterMs: 30_000, StartAtMs: start, EndAtMs: end, CatchUpWindowMs: time.Hour.Milliseconds(), HasCatchUpWindow: true, Overlap: trigger.OverlapQueueOne})
	c := consoleClient(t)
	site.signIn(t, c, site.tokens[apitoken.Read])
	for lang, want := range map[string][]string{
		"en": {
			`<dt>Misfire policy</dt><dd id="policy-misfire"><code>fire_once</code> — of the occurrences missed (an outage, a pause), the oldest runs once and the others are passed over</dd>`,
			`<dt>Overlap policy</dt><dd id="policy-overlap"><code>queue_one</code> — an occurrence waits for the unfinished run to finish; with one waiting already, it is passed over</dd>`,
			`<dt>Jitter</dt><dd id="policy-jitter">30s — each occurrence is admitted up to this much after its nominal time, at its due time</dd>`,
			`<dt>Starts at</dt><dd id="policy-startAt"><span class="time">2030-01-01 00:00:00 UTC</span> — the trigger has no occurrence before it</dd>`,
			`<dt>Ends at</dt><dd id="policy-endAt"><span class="time">2031-06-30 12:00:00 UTC</span> — the trigger has no occurrence after it</dd>`,
			`<dt>Catch-up window</dt><dd id="policy-catchUpWindow">1h — a missed occurrence older than this is passed over, not run</dd>`,
		},
		"zh": {
			`<dt>错过策略</dt><dd id="policy-misfire"><code>fire_once</code> — 错过的发生时刻（停机、暂停期间）中最早的一次运行一次，其余跳过</dd>`,
			`<dt>重叠策略</dt><dd id="policy-overlap"><code>queue_one</code> — 发生时刻等待未结束的运行结束；已有一个在等待时则跳过</dd>`,
			`<dt>抖动（jitter）</dt><dd id="policy-jitter">30s — 每次发生时刻在其名义时间之后最多推迟这么久，于其到期时间准入</dd>`,
			`<dt>起始时间（startAt）</dt><dd id="policy-startAt"><span class="time">2030-01-01 00:00:00 UTC</span> — 触发器在此之前没有发生时刻</dd>`,
			`<dt>结束时间（endAt）</dt><dd id="policy-endAt"><span class="time">2031-06-30 12:00:00 UTC</span> — 触发器在此之后没有发生时刻</dd>`,
			`<dt>补跑窗口（catchUpWindow）</dt><dd id="policy-catchUpWindow">1h — 早于此时长的错过发生时刻被跳过，不会运行</dd>`,
		},
	} {
		_, page := httpcall.Form(t, c, http.MethodGet, site.base+"/triggers/"+site.triggerID+"?lang="+lang, nil)
		for _, w := range want {
			if !strings.Contains(page, w) {
				t.Errorf("the %s trigger page does not show %s:\n%s", lang, w, page)
			}
		}
	}

	plain := startConsoleSite(t)
	pc := consoleClient(t)
	plain.signIn(t, pc, plain.tokens[apitoken.Read])
	_, page := httpcall.Form(t, pc, http.MethodGet, plain.base+"/triggers/"+plain.triggerID+"?lang=en", nil)
	if !strings.Contains(page, `id="policy-misfire"><code>fire_once</code>`) || !strings.Contains(page, `id="policy-overlap"><code>allow</code> — an occurrence runs whether or not an earlier run is unfinished<`) {
		t.Errorf("the page of a trigger without time policies does not show its misfire policy and the overlap policy allow:\n%s", page)
	}
	for _, name := range []string{"jitter", "startAt", "endAt", "catchUpWindow"} {
		if strings.Contains(page, `id="policy-`+name+`"`) {
			t.Errorf("the page of a trigger without time policies shows %s:\n%s", name, page)
		}
	}
}
