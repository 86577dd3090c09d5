package console

import "github.com/qinglong/qinglong/internal/core/notify"

// failureWhys say in each language why a notification's last attempt
// failed, by the reason its row keeps (notify.Reasons). The row's English
// text follows as the detail, as written: it names the channel, the host
// and the commands to run, and quotes what the receiver said.
var failureWhys = map[string]map[notify.Reason]string{
	"en": {
		notify.ReasonReceiverStatus:          "The receiver answered with an error status",
		notify.ReasonReceiverRateLimited:     "The receiver asked to wait before the next message (a rate limit)",
		notify.ReasonReceiverRedirected:      "The receiver redirected the request, which is never followed",
		notify.ReasonReceiverNotAcknowledged: "The push service did not acknowledge the message",
		notify.ReasonTimeout:                 "No answer within the delivery timeout",
		notify.ReasonUnreachable:             "The receiver could not be reached",
		notify.ReasonTLSFailed:               "The TLS handshake failed",
		notify.ReasonSecretUnavailable:       "A secret the channel needs could not be read",
		notify.ReasonMisconfigured:           "The channel's settings cannot make a delivery",
		notify.ReasonMailRefused:             "The mail server refused the message",
		notify.ReasonMailRefusedForNow:       "The mail server refused the message for now",
		notify.ReasonMailLoginRefused:        "The mail server refused the login",
		notify.ReasonMailNoSTARTTLS:          "The mail server does not offer STARTTLS",
		notify.ReasonMailNoLogin:             "The mail server offers no login QingLong can use",
		notify.ReasonInterrupted:             "The server stopped while sending it; it is sent again",
	},
	"zh": {
		notify.ReasonReceiverStatus:          "接收方返回了错误状态码",
		notify.ReasonReceiverRateLimited:     "接收方限流，要求等待一段时间再发",
		notify.ReasonReceiverRedirected:      "接收方要求重定向，青龙不会跟随重定向",
		notify.ReasonReceiverNotAcknowledged: "推送服务没有确认收到这条消息",
		notify.ReasonTimeout:                 "在投递超时内没有应答",
		notify.ReasonUnreachable:             "无法连接到接收方",
		notify.ReasonTLSFailed:               "TLS 握手失败",
		notify.ReasonSecretUnavailable:       "无法读取渠道所需的密钥",
		notify.ReasonMisconfigured:           "渠道配置有误，无法发出通知",
		notify.ReasonMailRefused:             "邮件服务器拒收了这封邮件",
		notify.ReasonMailRefusedForNow:       "邮件服务器暂时拒收了这封邮件",
		notify.ReasonMailLoginRefused:        "邮件服务器拒绝了登录",
		notify.ReasonMailNoSTARTTLS:          "邮件服务器不支持 STARTTLS",
		notify.ReasonMailNoLogin:             "邮件服务器没有青龙可用的登录方式",
		notify.ReasonInterrupted:             "发送途中服务停止了，会重新发送",
	},
}

// failureWhy is the sentence in l for a notification that failed for
// reason, "" for none (a row an older build failed, or a reason of a
// newer build): the page then shows the detail alone.
func failureWhy(l string, reason notify.Reason) string {
	if s, ok := failureWhys[l][reason]; ok {
		return s
	}
	return failureWhys["en"][reason]
}
