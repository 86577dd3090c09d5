package server

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/httpapi"
	"github.com/qinglong/qinglong/internal/core/httpserve"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/testkit/tlstest"
)

// The health server logs the address it bound (port 0 picks one), marks
// every response nosniff, and cuts a client that sends its headers a byte
// at a time within the shared header timeout.
func TestHealthServerLogsItsAddressAndCutsSlowClients(t *testing.T) {
	t.Parallel()
	var logs lockedBuffer
	srv, err := Start(t.Context(), Config{DataDir: t.TempDir(), HTTPAddr: "127.0.0.1:0", Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	stopAtCleanup(t, srv)
	if m := regexp.MustCompile(`http listening.* addr=(\S+)`).FindStringSubmatch(logs.String()); m == nil || m[1] != srv.Addr() {
		t.Fatalf("log %q does not name the bound address %s", logs.String(), srv.Addr())
	}
	for _, path := range []string{"/livez", "/readyz", "/nope"} {
		resp, err := http.Get("http://" + srv.Addr() + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("%s: X-Content-Type-Options %q, want nosniff", path, got)
		}
	}
	if !cutWithin(t, srv.Addr(), httpserve.ReadHeaderTimeout+3*time.Second) {
		t.Fatalf("a client dribbling its headers still held the connection after %s", httpserve.ReadHeaderTimeout+3*time.Second)
	}
}

// cutWithin sends a request's headers one byte every 250ms and reports
// whether the server ended the connection (closed it or answered) before
// limit.
func cutWithin(t *testing.T, addr string, limit time.Duration) bool {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "GET /livez HTTP/1.1\r\nHost: qinglong\r\nX-Slow: "); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	for end := time.Now().Add(limit); time.Now().Before(end); {
		if _, err := conn.Write([]byte("a")); err != nil {
			return true
		}
		if err := conn.SetReadDeadline(time.Now().Add(250 * time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		n, err := conn.Read(buf)
		var ne net.Error
		if n > 0 || (err != nil && !(errors.As(err, &ne) && ne.Timeout())) {
			return true
		}
	}
	return false
}

// A connection the API listener drops before any request (plain HTTP sent
// to its HTTPS: a failed TLS handshake) is a warning of the server's log,
// in its format and under http.connection_error, not a bare line of Go's
// standard logger on stderr that a log shipper cannot parse.
func TestAFailedTLSHandshakeOnTheAPIIsAWarningOfTheServersLog(t *testing.T) {
	t.Parallel()
	cert, key := tlstest.WriteCert(t)
	var logs lockedBuffer
	srv, err := Start(t.Context(), Config{DataDir: t.TempDir(), HTTPAddr: "127.0.0.1:0", TLS: httpapi.TLSSettings{Cert: cert, Key: key},
		Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	stopAtCleanup(t, srv)
	conn, err := net.Dial("tcp", srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	_, _ = io.ReadAll(conn)
	var warning map[string]any
	waitFor(t, "the failed handshake logged", 10*time.Second, func() bool {
		for _, line := range strings.Split(logs.String(), "\n") {
			if strings.Contains(line, httpapi.CodeConnectionError) {
				return json.Unmarshal([]byte(line), &warning) == nil
			}
		}
		return false
	})
	if msg, _ := warning["msg"].(string); warning["level"] != "WARN" || warning["code"] != httpapi.CodeConnectionError || !strings.Contains(msg, "TLS handshake error") {
		t.Fatalf("the failed handshake was logged as %v; want a warning naming the handshake", warning)
	}
}

// The start names the console's address as a browser opens it and, while
// nothing can sign in to the console, the command that creates an
// account; while an API token is active (it signs in too), or once an
// account exists, only the address.
func TestAServerWithoutAConsoleAccountSaysWhereTheConsoleIsAndHowToSignIn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	start := func() (*Server, string) {
		var logs lockedBuffer
		srv, err := Start(t.Context(), Config{DataDir: dir, HTTPAddr: "127.0.0.1:0", Cadence: time.Hour, StopTimeout: testStopTimeout, Concurrency: 1,
			Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		if err != nil {
			t.Fatal(err)
		}
		return srv, logs.String()
	}
	srv, logs := start()
	url := "http://" + srv.Addr() + "/"
	if !strings.Contains(logs, "open the console at "+url) {
		t.Errorf("log %q does not name the console's URL %s", logs, url)
	}
	create := "`ql users create NAME --owner --data-dir " + dir + "`"
	if !strings.Contains(logs, "code="+CodeNoAccounts) || !strings.Contains(logs, create) {
		t.Errorf("log %q does not say how to create the first account (%s)", logs, create)
	}
	restart := func() {
		t.Helper()
		if err := srv.Stop(t.Context()); err != nil {
			t.Fatal(err)
		}
		srv, logs = start()
	}
	if _, _, err := apitoken.Create(t.Context(), srv.store, "tester", ids.New(), "ops", apitoken.Operate, 0); err != nil {
		t.Fatal(err)
	}
	restart()
	if strings.Contains(logs, CodeNoAccounts) {
		t.Errorf("with an active API token, the start still says nothing can sign in: %q", logs)
	}
	if err := srv.store.TokenRevoke(t.Context(), "ops", "tester"); err != nil {
		t.Fatal(err)
	}
	restart()
	if !strings.Contains(logs, "code="+CodeNoAccounts) {
		t.Errorf("with its only token revoked, the start does not say how to create an account: %q", logs)
	}
	if _, err := account.Create(t.Context(), srv.store, "tester", ids.New(), "dora", account.Owner, ownerPassword); err != nil {
		t.Fatal(err)
	}
	restart()
	stopAtCleanup(t, srv)
	if strings.Contains(logs, CodeNoAccounts) {
		t.Errorf("with an account, the start still says none exists: %q", logs)
	}
}

// A server on every interface (--http-addr 0.0.0.0:P, which Go reports
// listening on [::]) names a console URL on loopback a browser on this
// machine can open (127.0.0.1, not [::1] of an address never given), and
// says that names other machines use need --allowed-hosts; the machine's
// own address it answers to.
func TestAServerOnEveryInterfaceNamesALoopbackConsoleURLAndSaysNamesNeedAllowedHosts(t *testing.T) {
	t.Parallel()
	var logs lockedBuffer
	srv, err := Start(t.Context(), Config{DataDir: t.TempDir(), HTTPAddr: "0.0.0.0:0", TLS: httpapi.TLSSettings{Insecure: true}, Cadence: time.Hour,
		StopTimeout: testStopTimeout, Concurrency: 1, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	stopAtCleanup(t, srv)
	_, port, _ := net.SplitHostPort(srv.Addr())
	console := "http://127.0.0.1:" + port + "/"
	if !strings.Contains(logs.String(), "open the console at "+console) || !strings.Contains(logs.String(), "code="+CodeHTTPEveryInterface) ||
		!strings.Contains(logs.String(), "is refused until --allowed-hosts names it") {
		t.Errorf("log %q; want the console at %s and that names need --allowed-hosts", logs.String(), console)
	}
	resp, err := http.Get(console + "livez")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET %slivez: %s", console, resp.Status)
	}
	for configured, want := range map[string]string{"0.0.0.0:8080": "http://127.0.0.1:8080/", ":8080": "http://127.0.0.1:8080/", "[::]:8080": "http://[::1]:8080/"} {
		if got := httpserve.ConsoleURL("[::]:8080", configured, false); got != want {
			t.Errorf("ConsoleURL of %s = %q, want %q", configured, got, want)
		}
	}
	if got := httpserve.ConsoleURL("10.0.0.5:8443", "10.0.0.5:8443", true); got != "https://10.0.0.5:8443/" {
		t.Errorf("a named address over TLS: %q, want it as it is", got)
	}
}
