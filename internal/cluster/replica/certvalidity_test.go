package replica

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/testkit/cleanstop"
	"github.com/qinglong/qinglong/internal/testkit/tlstest"
)

// A replica started with a worker ingress certificate that is not yet
// valid, or has expired, by its clock says so as it starts, naming the
// window: workers refuse it, and all the replica would see of that is
// "remote error: tls: bad certificate".
func TestAReplicaWarnsAtStartOfAnIngressCertificateOutsideItsValidity(t *testing.T) {
	t.Parallel()
	now := time.Now()
	for name, window := range map[string][2]time.Time{
		"not yet valid": {now.Add(time.Hour), now.Add(2 * time.Hour)},
		"expired":       {now.Add(-2 * time.Hour), now.Add(-time.Hour)},
		"valid":         {now.Add(-time.Hour), now.Add(time.Hour)},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cert, key := tlstest.WriteCertValid(t, window[0], window[1])
			f := validFlags()
			f.WorkerAddr, f.WorkerTLSCert, f.WorkerTLSKey = "127.0.0.1:0", cert, key
			s, err := settingsFrom(&f)
			if err != nil {
				t.Fatal(err)
			}
			var logs bytes.Buffer
			r := &replica{s: s, log: slog.New(slog.NewJSONHandler(&logs, nil)), adm: &admission{}, beat: newHeartbeat()}
			if err := r.listenWorkers(); err != nil {
				t.Fatal(err)
			}
			cleanstop.AtCleanup(t, "the worker ingress", 10*time.Second, r.workerHTTP.Shutdown)
			warned := strings.Contains(logs.String(), `"code":"`+CodeCertificateNotValid+`"`)
			if name == "valid" {
				if warned {
					t.Fatalf("a valid certificate was warned of:\n%s", logs.String())
				}
				return
			}
			if !warned || !strings.Contains(logs.String(), `"not_before":"`+window[0].UTC().Format(time.RFC3339)+`"`) ||
				!strings.Contains(logs.String(), `"not_after":"`+window[1].UTC().Format(time.RFC3339)+`"`) || !strings.Contains(logs.String(), "--worker-tls-cert") {
				t.Fatalf("no warning naming the certificate's validity window:\n%s", logs.String())
			}
		})
	}
}
