package notify

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// maxAcknowledgement bounds the answer read for a chat service's
// acknowledgement: theirs are a few dozen bytes, and a longer answer is
// not one.
const maxAcknowledgement = 16 << 10

// ackField is a chat service's pair of answer fields: a code, ok (zero
// unless the service says otherwise) when the service took the message,
// and the message that explains another.
type ackField struct{ code, message string }

// acknowledgement is how a chat service says in the body of its answer
// whether it took a message: DingTalk, WeCom, Feishu, PushPlus and
// ServerChan answer 200 to a refusal too (a missing keyword, a wrong
// signature, token or IP, a rate limit), with another code in the body.
type acknowledgement struct {
	service string
	// fields are the service's pairs, the current one first: the first
	// one the answer holds decides.
	fields []ackField
	// ok is the code of a message taken.
	ok int64
	// url says what URL the channel needs, for an answer that is not the
	// service's.
	url string
	// rateLimit is the code of a message refused for coming too fast, and
	// holds how long the service keeps refusing the robot's messages
	// after it, as its documentation says.
	rateLimit string
	holds     time.Duration
}

var acknowledgements = map[Kind]acknowledgement{
	// 20 messages a minute per robot; past them, 10 minutes refused.
	DingTalk: {service: "DingTalk", fields: []ackField{{"errcode", "errmsg"}}, url: robotURL, rateLimit: "130101", holds: 10 * time.Minute},
	// 20 messages a minute per robot; a limit per minute blocks 60 s.
	WeCom: {service: "WeCom", fields: []ackField{{"errcode", "errmsg"}}, url: robotURL, rateLimit: "45009", holds: time.Minute},
	// Feishu's current answers carry code and msg; older ones, still
	// seen, StatusCode and StatusMessage only. 100 messages a minute and
	// 5 a second per bot.
	Feishu: {service: "Feishu", fields: []ackField{{"code", "msg"}, {"StatusCode", "StatusMessage"}}, url: robotURL, rateLimit: "11232", holds: time.Minute},
	// PushPlus takes a message with code 200, its HTTP status's number.
	PushPlus: {service: "PushPlus", fields: []ackField{{"code", "msg"}}, ok: 200, url: "service's send URL (or leave url out for " + PushPlusURL + ")"},
	// ServerChan Turbo and ServerChan³ answer alike: code 0 and message.
	ServerChan: {service: "ServerChan", fields: []ackField{{"code", "message"}}, url: "SendKey's URL (or give the SendKey itself in tokenSecret)"},
}

const robotURL = "robot's webhook URL"

// check reads a 2xx answer of the service. The message was taken only if
// the answer is a JSON object whose code is ok: an answer without the code
// (not JSON, another object, an empty body) did not come from the service
// as it acknowledges a message, whatever it is (a proxy's page, a URL of
// something else), so it is a failure rather than a notification taken
// for delivered without evidence. What the answer said is quoted with
// mask's secrets masked before it is cut.
func (a acknowledgement) check(status int, answer []byte, mask secretMask) error {
	var fields map[string]json.RawMessage
	if len(answer) <= maxAcknowledgement && json.Unmarshal(answer, &fields) == nil {
		for _, f := range a.fields {
			raw, ok := fields[f.code]
			if !ok {
				continue
			}
			var code json.Number
			if json.Unmarshal(raw, &code) != nil || code == "" {
				break
			}
			if n, err := code.Int64(); err == nil && n == a.ok {
				return nil
			}
			var message string
			if json.Unmarshal(fields[f.message], &message) != nil {
				message = string(fields[f.message])
			}
			refused := fmt.Errorf("%s refused the notification: %s %s, %s", a.service, f.code, code, strconv.Quote(message))
			if code.String() == a.rateLimit {
				return &askedToWait{wait: a.holds, err: fmt.Errorf("%w; a rate limit: %s refuses the robot's messages for %s after it, so the next attempt waits as long",
					refused, a.service, a.holds)}
			}
			return refused
		}
	}
	return fmt.Errorf("the receiver answered %d without %s's acknowledgement (a JSON object with %s %d)%s; check that the URL is the %s",
		status, a.service, a.fields[0].code, a.ok, mask.saying(answer), a.url)
}
