package metrics

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// A replica's pool shows as its size and its connections in use and
// idle, read at each scrape, and not at all while it has no pool (a
// re-activation), rather than as zeros that would read as an idle pool.
func TestThePoolGaugesSayTheSizeAndConnectionsInUseAndAreAbsentWithoutAPool(t *testing.T) {
	t.Parallel()
	m := New(Config{Profile: ProfileCluster})
	stat, ok := PoolStat{Max: 17, InUse: 3, Idle: 5}, true
	m.AddPool(func() (PoolStat, bool) { return stat, ok })
	scrape := func() string {
		rec := httptest.NewRecorder()
		m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		return rec.Body.String()
	}
	body := scrape()
	for _, want := range []string{"qinglong_database_pool_max_connections 17", `qinglong_database_pool_connections{state="in_use"} 3`, `qinglong_database_pool_connections{state="idle"} 5`} {
		if !strings.Contains(body, want) {
			t.Errorf("scrape with a pool lacks %q", want)
		}
	}
	ok = false
	if body := scrape(); strings.Contains(body, "qinglong_database_pool_") {
		t.Error("the pool gauges are exported while the replica has no pool")
	}
}
