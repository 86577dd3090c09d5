package apply

import (
	"context"
	"strings"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// RefusalChannelMissing is the reason of a test message to a channel its
// project does not define.
const RefusalChannelMissing qlerror.Reason = "channel_missing"

// ProjectChannel reads the channel named channel of the project named
// name, as the project's notifications block defines it now: the channel
// a test message goes to (`ql notifications test`). A project no one has
// is project_missing, naming only the projects of in (every project when
// in is empty), a channel it does not define channel_missing, naming those
// it has.
func ProjectChannel(ctx context.Context, r catalog.DefinitionsReader, name, channel string, in []string) (project.Project, notify.Channel, error) {
	// The project alone: no task or trigger is read.
	d, err := r.ProjectDefinitions(ctx, name, 0)
	if qlerror.ReasonOf(err) == catalog.RefusalProjectMissing {
		return project.Project{}, notify.Channel{}, ProjectMissing(ctx, r, name, in)
	}
	if err != nil {
		return project.Project{}, notify.Channel{}, err
	}
	spec, err := notify.Decode(d.Project.Notifications)
	if err != nil {
		return project.Project{}, notify.Channel{}, err
	}
	if c, ok := spec.Channel(channel); ok {
		return d.Project, c, nil
	}
	there := "it defines no channel; its definitions file's notifications.channels names them"
	if len(spec.Channels) > 0 {
		names := make([]string, 0, len(spec.Channels))
		for _, c := range spec.Channels {
			names = append(names, c.Name)
		}
		there = "its channels are " + strings.Join(names, ", ")
	}
	return project.Project{}, notify.Channel{}, qlerror.New(qlerror.NotFound, "project %s has no notification channel %q; %s", name, channel, there).
		Because(RefusalChannelMissing, "project", name, "channel", channel)
}
