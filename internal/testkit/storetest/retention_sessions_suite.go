package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/retention"
	"github.com/qinglong/qinglong/internal/core/websession"
)

// A retention pass deletes the console sessions expired on the store's
// clock, in batches of its batch size and without a sign-in, counts them,
// and leaves the live ones; its dry run counts them first. The policy's
// settings do not matter: the sessions rule has none.
func testRetentionSessions(t *testing.T, f Fixture) {
	var expired, live []websession.Session
	for range 5 {
		expired = append(expired, createSession(t, f, userSignin(t, ids.New())))
	}
	for range 2 {
		live = append(live, createSession(t, f, userSignin(t, ids.New())))
	}
	for _, s := range expired {
		ageSession(t, f, s.Digest, sessionLifetime)
	}
	policy := retention.Policy{NotificationsAge: 30 * day}
	est, err := f.Retention.RetentionEstimate(t.Context(), policy)
	if err != nil || est[retention.KindSessions] != (retention.Deleted{Sessions: 5}) {
		t.Fatalf("the dry run counts %+v, %v; want the 5 expired sessions", est, err)
	}
	var batches []int64
	rep, err := retention.Pass(t.Context(), f.Retention, policy, retention.Options{BatchSize: 2, Share: 1, Budget: time.Minute,
		OnBatch: func(k retention.Kind, batch, _ retention.Deleted) {
			if k == retention.KindSessions {
				batches = append(batches, batch.Sessions)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.ByKind[retention.KindSessions] != (retention.Deleted{Sessions: 5}) || rep.Total.Sessions != 5 || !slices.Equal(batches, []int64{2, 2, 1}) {
		t.Fatalf("the pass deleted %+v (total %+v) in batches %v; want the 5 expired sessions in batches of 2, 2 and 1",
			rep.ByKind[retention.KindSessions], rep.Total, batches)
	}
	// Moved back to live times, the expired ones are not found: their rows
	// are gone, not merely expired.
	for _, s := range expired {
		ageSession(t, f, s.Digest, -sessionLifetime)
		sessionGone(t, f, s.Digest)
	}
	for _, s := range live {
		sessionLive(t, f, s.Digest)
	}
}
