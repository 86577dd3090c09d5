package replica

import (
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/httpapi"
	"github.com/qinglong/qinglong/internal/testkit/tlstest"
)

// A connection the API listener drops before any request (plain HTTP sent
// to its HTTPS: a failed TLS handshake) is a warning of the replica's log,
// under http.connection_error, not a bare line of Go's standard logger on
// stderr that a log shipper cannot parse.
func TestAFailedTLSHandshakeOnTheAPIIsAWarningOfTheReplicasLog(t *testing.T) {
	t.Parallel()
	cert, key := tlstest.WriteCert(t)
	// Nothing listens at this database address: the API listens anyway.
	f := cli.ServeFlags{Profile: cli.ProfileCluster, DatabaseURL: "postgres://ql_runtime@127.0.0.1:1/ql?sslmode=disable&connect_timeout=1",
		ReplicaID: "replica-handshake", HTTPAddr: "127.0.0.1:0", TLSCert: cert, TLSKey: key, WorkerAddr: "127.0.0.1:0", StopTimeout: 2 * time.Second}
	p := serveInProcess(t, f)
	addr, _ := p.logs.withCode(CodeListening)[0]["addr"].(string)
	sendPlainHTTP(t, addr)
	eventually(t, 10*time.Second, "the failed handshake logged", func() bool { return len(p.logs.withCode(httpapi.CodeConnectionError)) > 0 })
	line := p.logs.withCode(httpapi.CodeConnectionError)[0]
	if msg, _ := line["msg"].(string); line["level"] != "WARN" || !strings.Contains(msg, "TLS handshake error") {
		t.Fatalf("the failed handshake was logged as %v; want a warning naming the handshake", line)
	}
}

// sendPlainHTTP sends a plain HTTP request to addr and reads the answer to
// its end.
func sendPlainHTTP(t *testing.T, addr string) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	_, _ = io.ReadAll(conn)
}
