package schedule

import "github.com/qinglong/qinglong/internal/cron"

func parseTicket(tk Ticket) (*cron.Schedule, error) {
	return cron.Parse(tk.Cron.Expression, tk.Cron.Timezone)
}
