package console

import (
	"regexp"
	"strings"

	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/notify"
)

// The notes the server itself writes on an audit record, in English (a
// user's creation, a binding, a token's creation, a notification's
// retry), each read back by its words; a pause's note is the user's own
// and is never read so.
var (
	userCreatedNote  = regexp.MustCompile(`^(?:(the first owner, with the setup code|the first owner), )?role (viewer|operator|owner)(?:, (every project|projects .+))?$`)
	tokenCreatedNote = regexp.MustCompile(`^scope (read|operate|admin)(?:, expires in (\S+))?(?:, projects (.+))?$`)
	retriedNote      = regexp.MustCompile(`^([a-z_]+)(?: of Run (\S+))?$`)
	testedNote       = regexp.MustCompile(`(?s)^(?:delivered, HTTP (\d+)|(delivered, the mail server took it)|not delivered \(([a-z_]+)(?:, HTTP (\d+))?\): (.*))$`)
)

// auditNotes are the words of those notes in the languages other than
// English.
var auditNotes = map[string]map[string]string{
	"zh": {
		"the first owner, with the setup code": "第一个所有者，用设置码创建",
		"the first owner":                      "第一个所有者",
		"role":                                 "角色：",
		"every project":                        "所有项目",
		"projects":                             "项目：",
		"scope":                                "范围：",
		"expires":                              "有效期 ",
		"run":                                  "运行 ",
		"delivered":                            "已送达",
		"mail taken":                           "已送达，邮件服务器已接收",
		"not delivered":                        "未送达",
		"sep":                                  "；",
	},
}

// auditNote is the note of a record of action in l: a note the server
// wrote, in l's words; any other note (a user's, or one in words this
// console does not know) as it was written.
func auditNote(l string, action audit.Action, note string) string {
	w, ok := auditNotes[l]
	if !ok {
		return note
	}
	var parts []string
	switch action {
	case audit.UserCreated:
		m := userCreatedNote.FindStringSubmatch(note)
		if m == nil {
			return note
		}
		if m[1] != "" {
			parts = append(parts, w[m[1]])
		}
		parts = append(parts, w["role"]+tr(l, "role."+m[2]))
		if m[3] != "" {
			parts = append(parts, projectsNote(w, m[3]))
		}
	case audit.UserProjectsSet:
		if note != "every project" && !strings.HasPrefix(note, "projects ") {
			return note
		}
		parts = append(parts, projectsNote(w, note))
	case audit.TokenCreated:
		m := tokenCreatedNote.FindStringSubmatch(note)
		if m == nil {
			return note
		}
		parts = append(parts, w["scope"]+word(l, "scope", m[1]))
		if m[2] != "" {
			parts = append(parts, w["expires"]+m[2])
		}
		if m[3] != "" {
			parts = append(parts, w["projects"]+m[3])
		}
	case audit.NotificationRetried:
		m := retriedNote.FindStringSubmatch(note)
		if m == nil {
			return note
		}
		parts = append(parts, word(l, "event", m[1]))
		if m[2] != "" {
			parts = append(parts, w["run"]+m[2])
		}
	case audit.ChannelTested:
		return testedNoteIn(l, w, note)
	default:
		return note
	}
	return strings.Join(parts, w["sep"])
}

// projectsNote is a binding's "every project" or "projects a, b" in w's
// words, the names as written.
func projectsNote(w map[string]string, note string) string {
	if note == "every project" {
		return w["every project"]
	}
	return w["projects"] + strings.TrimPrefix(note, "projects ")
}

// testedNoteIn is a channel test's outcome (notify.Trial.Said) in w's
// words: the reason said as the Notifications page says it, the status
// and what the receiver said as recorded.
func testedNoteIn(l string, w map[string]string, note string) string {
	m := testedNote.FindStringSubmatch(note)
	switch {
	case m == nil:
		return note
	case m[1] != "":
		return w["delivered"] + w["sep"] + "HTTP " + m[1]
	case m[2] != "":
		return w["mail taken"]
	}
	out := w["not delivered"] + w["sep"] + failureWhy(l, notify.Reason(m[3]))
	if m[4] != "" {
		out += w["sep"] + "HTTP " + m[4]
	}
	return out + w["sep"] + m[5]
}
