package httpserve

import (
	"encoding/json"
	"errors"
	"net"
	"strconv"
	"sync"
	"time"
)

// plainHTTPListener answers a connection that starts a plain-HTTP request
// on a TLS listener, before the TLS layer reads it, with a JSON 400 that
// says to use https://, as every other refusal of the API is worded: Go's
// server would answer it in plain text itself ("Client sent an HTTP
// request to an HTTPS server."), which a client reading the API's errors
// cannot parse. That sentence opens the message still, so a client that
// recognises Go's answer (a worker given http://) recognises this one.
type plainHTTPListener struct {
	net.Listener
}

func (l plainHTTPListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &plainHTTPConn{Conn: c}, nil
}

// plainHTTPConn looks at the first bytes read from it: a TLS connection
// starts with a handshake record (0x16), a plain-HTTP request with its
// method's capital letter.
type plainHTTPConn struct {
	net.Conn
	once sync.Once
}

// errPlainHTTP ends the TLS handshake of a plain-HTTP request, which the
// server logs as a connection error (ConnectionErrorLog).
var errPlainHTTP = errors.New("a plain HTTP request was sent to the HTTPS listener; it was answered 400, saying to use https://")

// plainHTTPWriteTime bounds the write of the answer to a client that does
// not read it.
const plainHTTPWriteTime = 5 * time.Second

func (c *plainHTTPConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	plain := false
	c.once.Do(func() { plain = n > 0 && p[0] >= 'A' && p[0] <= 'Z' })
	if !plain {
		return n, err
	}
	_ = c.SetWriteDeadline(time.Now().Add(plainHTTPWriteTime))
	_, _ = c.Write(plainHTTPAnswer) // the client went away; nothing to do
	_ = c.Close()
	return 0, errPlainHTTP
}

// plainHTTPAnswer is the whole response to a plain-HTTP request on a TLS
// listener.
var plainHTTPAnswer = func() []byte {
	body, _ := json.Marshal(map[string]any{"error": map[string]string{ // a map of strings always marshals
		"code": "invalid", "reason": RefusalPlainHTTP,
		"message": "Client sent an HTTP request to an HTTPS server: this address serves HTTPS only; send the request to https:// with the same host and port " +
			"(curl: --cacert CERT for a private certificate)",
	}})
	body = append(body, '\n')
	head := "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n" +
		"Connection: close\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n"
	return append([]byte(head), body...)
}()

// RefusalPlainHTTP is the reason of the answer to a plain-HTTP request on
// a TLS listener (400).
const RefusalPlainHTTP = "plain_http_to_https"
