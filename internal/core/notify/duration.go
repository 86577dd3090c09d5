package notify

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// took is how long a Run took as the channel reads it: Go's form in
// English (1m2.5s, as before), and in Chinese hours, minutes and seconds
// in Chinese units (1分2.5秒, 3小时5分), a part of none left out, under a
// second in milliseconds (500毫秒).
func (w wording) took(d time.Duration) string {
	if !w.zh {
		return d.String()
	}
	if d < 0 {
		return "-" + w.took(-d)
	}
	if d < time.Second {
		return fmt.Sprintf("%d毫秒", d.Milliseconds())
	}
	var b strings.Builder
	if h := d / time.Hour; h > 0 {
		fmt.Fprintf(&b, "%d小时", h)
	}
	if m := d % time.Hour / time.Minute; m > 0 {
		fmt.Fprintf(&b, "%d分", m)
	}
	if s := d % time.Minute; s > 0 {
		b.WriteString(strconv.FormatFloat(s.Seconds(), 'f', -1, 64) + "秒")
	}
	return b.String()
}
