package replica

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/shellquote"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// unsetSecretDefs is skippedAlertsDefs with its webhook signed by a
// secret no replica's secrets file defines.
var unsetSecretDefs = strings.Replace(skippedAlertsDefs, "url: %q}", "url: %q, signingSecret: never_set}", 1)

// On the cluster, a notification whose channel names a secret the
// replica's --secrets-file lacks is not sent, and its last error is the
// command that sets that secret in that file, as it can be pasted, to be
// run on every replica: the error is read with `ql notifications list`
// on any host, and whichever replica claims the retry reads its own file.
func TestOnTheClusterANotificationWhoseSecretIsMissingSaysTheCommandThatSetsItOnEveryReplica(t *testing.T) {
	t.Parallel()
	var received atomic.Int32
	recv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { received.Add(1) }))
	t.Cleanup(recv.Close)
	// A directory with a space: the command is printed to be pasted.
	dir := filepath.Join(t.TempDir(), "replica secrets")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "secrets.json")
	if err := os.WriteFile(file, []byte(`{"other_secret": "an-unrelated-value"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := buildQL(t)
	env := clustertest.New(t)
	env.Apply(t, fmt.Sprintf(unsetSecretDefs, recv.URL+"/hook"))
	r := startReplica(t, bin, env, "replica-unset-secret", "--notify-loopback", "--secrets-file", file, "--notify-max-attempts", "1", "--lease", "3s")
	r.await(t, CodeReady, 30*time.Second)
	eventually(t, 30*time.Second, "the schedule initialised", func() bool {
		return env.Int(t, `SELECT count(*) FROM qinglong.trigger_schedules WHERE next_fire_at_ms IS NOT NULL`) == 1
	})
	env.MakeDue(t, 5*60_000)
	var lastError string
	eventually(t, 30*time.Second, "the notification's failed delivery", func() bool {
		err := env.Super.QueryRow(context.Background(),
			`SELECT last_error FROM qinglong.notification_outbox WHERE last_error IS NOT NULL LIMIT 1`).Scan(&lastError)
		return err == nil
	})
	want := "set it with `ql secrets set never_set --secrets-file " + shellquote.Quote(file) + "` on every replica"
	if !strings.Contains(lastError, `secret "never_set" is not defined in `+file) || !strings.Contains(lastError, want) {
		t.Errorf("last error %q; want it to name the secret and the file and say %q", lastError, want)
	}
	if strings.Contains(lastError, "an-unrelated-value") {
		t.Errorf("last error %q quotes a value of the secrets file", lastError)
	}
	if n := received.Load(); n != 0 {
		t.Errorf("the receiver got %d requests; want none, the body cannot be signed", n)
	}
}
