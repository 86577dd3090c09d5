package httpserve

import (
	"net/http"
	"time"
)

// longWriteTime is how long one write of a long answer may take: the
// reader has that long to take each piece.
const longWriteTime = time.Minute

// LongAnswer is w for an answer that lasts as long as what it sends (a
// backup archive): each write moves the connection's write deadline a
// minute on, so the answer outlives the server's write timeout while a
// reader that stopped taking it is still cut off.
func LongAnswer(w http.ResponseWriter) *LongWriter {
	return &LongWriter{w: w, rc: http.NewResponseController(w)}
}

// LongWriter is LongAnswer's writer.
type LongWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func (l *LongWriter) Write(p []byte) (int, error) {
	_ = l.rc.SetWriteDeadline(time.Now().Add(longWriteTime))
	return l.w.Write(p)
}
