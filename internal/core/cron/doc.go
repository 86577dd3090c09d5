// Package cron parses QingLong cron expressions and computes their next
// occurrence in an explicit IANA time zone. It does no I/O and never reads the
// clock: every instant is an input, in UTC epoch milliseconds.
//
// # Grammar
//
// Five fields (minute hour day-of-month month day-of-week) or six with a
// leading seconds field, in the grammar of github.com/robfig/cron/v3, whose
// parser we use to turn fields into bitmasks. Macros (@daily, @every …),
// TZ=/CRON_TZ= prefixes and the Quartz extensions L, W and # are rejected with
// an error that says what to write instead; see [Features].
//
// # Daylight saving rule
//
// A wall time can be missing (spring-forward gap) or happen twice (fall-back
// overlap). The rule, from docs/architecture.md, "Cron time and daylight saving":
//
//   - fixed-hour expressions (hour field not every hour): a matching wall time that
//     falls in a gap fires once, at the first instant after the gap, and several
//     in one gap fire once together (Next never returns one instant twice); a matching
//     wall time that happens twice fires once, at its first occurrence;
//   - every-hour expressions follow real elapsed time: wall times in a gap never
//     happen, repeated wall times fire once per real occurrence.
//
// "Every hour" means the hour field's set is all 24 hours, however it is
// written: "*", "?", "*/1", "0/1", "0-23" and "0-11,12-23" count; "*/2" and
// "1-23" are fixed-hour.
//
// # How Next works
//
// Between two offset changes of the zone (a segment), wall time is the instant
// plus a constant offset, so a plain civil-calendar search (wall.go) over wall
// time answers the question inside one segment. Next (next.go) walks the
// zone's segments with time.Time.ZoneBounds and applies the DST rule only at
// segment boundaries. Both the civil search and the walk are bounded by a
// horizon derived from the day fields (a year for most expressions, eight
// years when only February 29th matches), so every expression that matches
// some calendar date finds it, and one that matches none ("0 0 30 2 *") is
// answered false without searching.
package cron
