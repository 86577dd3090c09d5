package console

import (
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/run"
)

// A Run lists how long it took from its admission to its finish, said as
// a person reads it, and nothing while it has not finished.
func TestARunListsHowLongItTookOnceFinished(t *testing.T) {
	t.Parallel()
	end := int64(1_000_2500)
	if got := took("en", run.Run{CreatedAtMs: 1_000_0000, FinishedAtMs: &end}); got != "2.5s" {
		t.Errorf("a Run finished 2.5 s after its admission took %q, want 2.5s", got)
	}
	if got := took("zh", run.Run{CreatedAtMs: 1_000_0000}); got != "—" {
		t.Errorf("an unfinished Run took %q, want —", got)
	}
}

// Durations read as a person says them, in English and Chinese: no Go
// 1m51.341s.
func TestDurationsAreSaidAsAPersonReadsThem(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		d      time.Duration
		en, zh string
	}{
		{9 * time.Millisecond, "9ms", "9毫秒"},
		{0, "0ms", "0毫秒"},
		{2500 * time.Millisecond, "2.5s", "2.5秒"},
		{59 * time.Second, "59s", "59秒"},
		{111341 * time.Millisecond, "1m51s", "1分51秒"},
		{2 * time.Minute, "2m", "2分"},
		{2*time.Hour + 5*time.Second, "2h0m5s", "2小时0分5秒"},
		{3*time.Hour + 4*time.Minute, "3h4m", "3小时4分"},
	} {
		if got := humanDuration("en", c.d); got != c.en {
			t.Errorf("%s in English: %q, want %q", c.d, got, c.en)
		}
		if got := humanDuration("zh", c.d); got != c.zh {
			t.Errorf("%s in Chinese: %q, want %q", c.d, got, c.zh)
		}
	}
}

// A Run's attempts' running time, as its store adds it up, is said once
// it has finished, and nothing before.
func TestARunsRunningTimeIsSaidOnceFinished(t *testing.T) {
	t.Parallel()
	ms := int64(1009)
	if got := ran("zh", run.Run{RanMs: &ms}); got != "1秒" {
		t.Errorf("attempts of 1,009 ms ran %q, want 1秒", got)
	}
	if got := ran("en", run.Run{}); got != "" {
		t.Errorf("a Run not finished ran %q, want nothing", got)
	}
}

// A lost Run's running time that counts only until its worker was last
// heard from is said as a lower bound, in English and Chinese.
func TestALostRunsRunningTimeIsSaidAsALowerBound(t *testing.T) {
	t.Parallel()
	ms := int64(9)
	r := run.Run{State: run.Lost, RanMs: &ms, RanUntilLastHeard: true}
	if got := ran("en", r); got != "≥ 9ms (until last heard from)" {
		t.Errorf("a lost Run ran %q in English, want ≥ 9ms (until last heard from)", got)
	}
	if got := ran("zh", r); got != "至少 9毫秒（至最后一次联系）" {
		t.Errorf("a lost Run ran %q in Chinese, want 至少 9毫秒（至最后一次联系）", got)
	}
}
