package console

import (
	"bytes"
	"encoding/json"

	"github.com/qinglong/qinglong/internal/core/run"
)

// liveTables are the parts of a Run's page its live log keeps true, each
// the name of the template rendering it and of the event sending it: the
// facts above the tables (its state, when it started, the next retry, why
// it waits), the attempts (a waiting attempt that starts, when it started,
// its log so far, a retry's new attempt) and the events (a worker's grant,
// the start, a retry's wait). A reload would replace the live stream the
// page follows, so they change in place.
var liveTables = []string{"facts", "attempts", "events"}

// rowsEvent is the data of the event named table: the rows of the Run
// page's table (or its facts) for d, rendered by the page's own template with p (the
// page the stream's request would show: its language, zone and session),
// as a JSON string. The words and the markup stay the template's alone.
func (c *Console) rowsEvent(p page, d run.Detail, table string) ([]byte, error) {
	p.Data = map[string]any{"D": d, "HasLog": c.cfg.ReadLog != nil}
	var buf bytes.Buffer
	if err := c.tmpl["run"].ExecuteTemplate(&buf, table, p); err != nil {
		return nil, err
	}
	return json.Marshal(buf.String())
}

// sendRows sends the rows of each of liveTables that read differently from
// those it sent last (sent, by table), and keeps them in sent. An error is
// a template's (logged here) or the browser's gone.
func (c *Console) sendRows(st *stream, p page, d run.Detail, sent map[string][]byte) error {
	for _, table := range liveTables {
		b, err := c.rowsEvent(p, d, table)
		if err != nil {
			c.cfg.Log.Error("console: render", "code", CodeRenderFailed, "page", "run "+table, "err", err)
			return err
		}
		if bytes.Equal(b, sent[table]) {
			continue
		}
		sent[table] = b
		if err := st.send("event: %s\ndata: %s\n\n", table, b); err != nil {
			return err
		}
	}
	return nil
}
