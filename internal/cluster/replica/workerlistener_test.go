package replica

import (
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/testkit/tlstest"
)

// A worker sending plain HTTP to the replica's TLS worker ingress, as a
// worker given http:// for it does at every retry, is said once (a
// warning under serve.worker_connection_error), not once a retry, while
// another host's failed handshake is said at once.
func TestAWorkerRetryingPlainHTTPToTheTLSIngressIsLoggedOnceNotAtEachRetry(t *testing.T) {
	t.Parallel()
	cert, key := tlstest.WriteCert(t)
	// Nothing listens at this database address: the ingress listens anyway.
	f := cli.ServeFlags{Profile: cli.ProfileCluster, DatabaseURL: "postgres://ql_runtime@127.0.0.1:1/ql?sslmode=disable&connect_timeout=1",
		ReplicaID: "replica-plainworker", HTTPAddr: "127.0.0.1:0", WorkerAddr: "127.0.0.1:0", WorkerTLSCert: cert, WorkerTLSKey: key,
		StopTimeout: 2 * time.Second}
	p := serveInProcess(t, f)
	eventually(t, 10*time.Second, "the worker ingress listening", func() bool { return len(p.logs.withCode(CodeWorkerListening)) > 0 })
	addr, _ := p.logs.withCode(CodeWorkerListening)[0]["addr"].(string)
	from := func(host string) []map[string]any {
		var out []map[string]any
		for _, line := range p.logs.withCode(CodeWorkerConnError) {
			if msg, _ := line["msg"].(string); strings.Contains(msg, "TLS handshake error from "+host+":") {
				out = append(out, line)
			}
		}
		return out
	}
	for range 5 {
		plainHTTPFrom(t, "127.0.0.1", addr)
	}
	plainHTTPFrom(t, "127.0.0.2", addr)
	eventually(t, 10*time.Second, "both hosts' failed handshakes logged", func() bool { return len(from("127.0.0.1")) > 0 && len(from("127.0.0.2")) == 1 })
	if got := from("127.0.0.1"); len(got) != 1 || got[0]["level"] != "WARN" {
		t.Fatalf("5 plain HTTP requests from one host to the TLS worker ingress logged %v, want one warning", got)
	}
}

// plainHTTPFrom sends a plain HTTP request from host to addr and reads
// the answer to its end.
func plainHTTPFrom(t *testing.T, host, addr string) {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(host)}}
	conn, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "POST /api/v1/workers/register HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	_, _ = io.ReadAll(conn)
}
