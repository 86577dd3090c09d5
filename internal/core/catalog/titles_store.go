package catalog

import (
	"maps"
	"slices"

	"github.com/qinglong/qinglong/internal/core/validate"
)

// The kinds of object a title belongs to, as a titles read names them.
const (
	TitleOfTask    = "task"
	TitleOfTrigger = "trigger"
)

// TitleRows are the rows of an adapter's titles read, each (kind, name,
// title), kind TitleOfTask or TitleOfTrigger: the methods both adapters'
// driver rows have, so that neither the catalog nor the other adapter
// imports a driver.
type TitleRows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// ScanTitles reads the rows of a titles read; the caller closes them.
func ScanTitles(rows TitleRows) (Titles, error) {
	t := Titles{Tasks: map[string]string{}, Triggers: map[string]string{}}
	for rows.Next() {
		var kind, name, title string
		if err := rows.Scan(&kind, &name, &title); err != nil {
			return t, err
		}
		if kind == TitleOfTask {
			t.Tasks[name] = title
		} else {
			t.Triggers[name] = title
		}
	}
	return t, rows.Err()
}

// EachTitle calls save with each of t's titles, checked by
// validate.Title: the tasks' then the triggers', each in name order, so
// that two publishes lock the heads they share in one order. It stops at
// the first refusal or failure and returns it.
func (t Titles) EachTitle(save func(kind, name, title string) error) error {
	for _, kind := range []struct {
		name   string
		titles map[string]string
	}{{TitleOfTask, t.Tasks}, {TitleOfTrigger, t.Triggers}} {
		for _, name := range slices.Sorted(maps.Keys(kind.titles)) {
			title := kind.titles[name]
			if err := validate.Title(kind.name+".title", title); err != nil {
				return err
			}
			if err := save(kind.name, name, title); err != nil {
				return err
			}
		}
	}
	return nil
}
