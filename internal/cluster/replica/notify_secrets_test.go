package replica

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// A replica started without --secrets-file refuses a channel's secret
// saying it has no file and how to give it one (the command that writes
// the secret, the flag that names the file), where the deliverer's
// default said only that no store was configured; a channel without
// secrets reads nothing.
func TestAReplicaWithoutASecretsFileSaysHowToGiveItOne(t *testing.T) {
	t.Parallel()
	resolve := notifySecrets("")
	if values, err := resolve(nil); err != nil || values != nil {
		t.Fatalf("no secret asked: %v, %v; want nothing read", values, err)
	}
	_, err := resolve([]string{"hook_key"})
	for _, want := range []string{`secret "hook_key"`, "started without --secrets-file", "`ql secrets set hook_key --secrets-file FILE` on every replica", "start each with --secrets-file FILE"} {
		if !qlerror.Is(err, qlerror.FailedPrecondition) || !strings.Contains(err.Error(), want) {
			t.Errorf("a secret asked of a replica without a file: %v; want failed_precondition saying %q", err, want)
		}
	}
}
