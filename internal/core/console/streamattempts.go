package console

import (
	"bytes"
	"encoding/json"

	"github.com/qinglong/qinglong/internal/core/run"
)

// attemptsEvent is the data of the "attempts" event: the rows of the Run
// page's attempts table for d, rendered by the page's own template with
// p (the page the stream's request would show: its language, zone and
// session), as a JSON string. A page shown while its attempt waited shows
// it running, when it started and the link to its log so far, and a
// retry's new attempt, in place: a reload would replace the live stream
// it follows. The words and the markup stay the template's alone.
func (c *Console) attemptsEvent(p page, d run.Detail) ([]byte, error) {
	p.Data = map[string]any{"D": d, "HasLog": c.cfg.ReadLog != nil}
	var buf bytes.Buffer
	if err := c.tmpl["run"].ExecuteTemplate(&buf, "attempts", p); err != nil {
		return nil, err
	}
	return json.Marshal(buf.String())
}
