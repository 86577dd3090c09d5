package cron

// Features is the user-facing summary of the accepted syntax, for CLI help.
// Keep it in step with Parse and with the DST rule in doc.go.
const Features = `Cron expression: 5 fields "minute hour day-of-month month day-of-week",
or 6 with a leading seconds field (0-59).
Per field: * or ? (any), n, a-b (range), a-b/s, */s, a/s (steps), comma lists.
Ranges: minute 0-59, hour 0-23, day-of-month 1-31, month 1-12 or JAN-DEC,
day-of-week 0-6 or SUN-SAT (0 = Sunday); names are case-insensitive.
Day fields: one written as * or ? (alone, as */1, or in a list) leaves the
day to the other; any other spelling restricts the day, even */2 or 1-31.
When both are restricted, a day matching EITHER fires (as in Kubernetes
CronJobs); otherwise a day must match both. Vixie cron (crontab) reads a
day field starting with * (such as */2) as unrestricted, so there
"0 0 */2 * 1" fires on odd days that are Mondays, here on odd days and on
Mondays; no expression here requires both restricted fields.
Not supported: L, W, # (last/nearest weekday/nth weekday), a year field,
macros such as @daily or @every, and TZ=/CRON_TZ= prefixes.
Timezone: required, an IANA name such as "Europe/Berlin" or "UTC".
Daylight saving: a time skipped by a spring-forward gap fires once, right
after the gap, and several skipped times of one day fire once together
("*/15 2 * * *" fires once at 03:00 on the day 02:00-03:00 is skipped,
where cronie runs each); a time repeated at fall-back fires once, the
first time.
When the hour field names every hour ("*", "*/1", "0-23", "0/1"), schedules
follow real time instead: skipped times do not fire and repeated times fire
twice.`
