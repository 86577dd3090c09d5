package view

import "github.com/qinglong/qinglong/internal/core/notify"

// ChannelTrial is the outcome of a test message to a channel, as `ql
// notifications test -o json` and POST
// /api/v1/projects/{project}/notifications/channels/{name}/test give it:
// the channel by name and kind only, never its URL or secrets. Status is
// the receiver's HTTP status (absent for an email channel, or when none
// answered); Reason and Error say why it was not delivered, as a failed
// notification's lastErrorReason and lastError do.
type ChannelTrial struct {
	Project     string `json:"project"`
	Channel     string `json:"channel"`
	ChannelKind string `json:"channelKind"`
	Delivered   bool   `json:"delivered"`
	Status      int    `json:"status,omitempty"`
	Reason      string `json:"reason,omitempty"`
	Error       string `json:"error,omitempty"`
}

// NewChannelTrial is the stable shape of t, a test message of project to c.
func NewChannelTrial(project string, c notify.Channel, t notify.Trial) ChannelTrial {
	return ChannelTrial{Project: project, Channel: c.Name, ChannelKind: string(c.Kind), Delivered: t.Delivered, Status: t.Status,
		Reason: string(t.Failure.Reason), Error: t.Failure.Text}
}
