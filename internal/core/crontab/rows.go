package crontab

import (
	"strings"
	"unicode"

	"github.com/qinglong/qinglong/internal/core/validate"
)

// Row is one task of the qinglong panel's own table of them, rather than
// a line of the crontab.list it writes from that table: its row id, its
// name (the Chinese title its list shows), schedule and command, and
// whether it is disabled.
type Row struct {
	ID       int
	Name     string
	Schedule string
	Command  string
	Disabled bool
	// Labels are the task's labels, written as they are.
	Labels map[string]string
}

// ConvertRows converts rows as Convert converts a crontab's lines (each
// Problem's Line is then the row's ID), but for a "%", which is cron's
// and means nothing in a row's command: a disabled row's trigger is
// disabled, and each task is titled with its row's name when that is a
// title a task may have.
func ConvertRows(rows []Row, o Options) Result {
	var res Result
	st := state{Options: o, zone: o.Zone, shell: "/bin/sh", env: map[string]string{}, names: map[string]int{}, users: map[string]bool{},
		// The rows' disabled state is the panel's own field, not its
		// commented crontab line, which the note on those explains.
		commentedNoted: true, literal: true}
	for _, r := range rows {
		text := strings.TrimSpace(r.Schedule) + " " + strings.TrimSpace(r.Command)
		before := len(res.Entries)
		st.entry(&res, r.ID, text, text, r.Disabled)
		if len(res.Entries) == before {
			continue
		}
		e := &res.Entries[before]
		if title := titleOf(r.Name); title != "" {
			e.Title = title
		}
		if len(r.Labels) > 0 {
			if e.Labels == nil {
				e.Labels = map[string]string{}
			}
			for k, v := range r.Labels {
				e.Labels[k] = v
			}
		}
	}
	return res
}

// titleOf is a panel name as a task's title: control and text-direction
// characters become spaces, runs of spaces one, cut to the longest title
// a task may have; "" when nothing of it is left.
func titleOf(name string) string {
	clean := strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || validate.IsBidiControl(r) {
			return ' '
		}
		return r
	}, name)
	clean = strings.Join(strings.Fields(clean), " ")
	if r := []rune(clean); len(r) > validate.MaxTitleLen {
		clean = strings.TrimSpace(string(r[:validate.MaxTitleLen]))
	}
	if validate.Title("title", clean) != nil {
		return ""
	}
	return clean
}
