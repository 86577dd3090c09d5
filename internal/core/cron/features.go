package cron

// Features is the user-facing summary of the accepted syntax, for CLI help.
// Keep it in step with Parse and with the DST rule in doc.go.
const Features = `Cron expression: 5 fields "minute hour day-of-month month day-of-week",
or 6 with a leading seconds field (0-59).
Per field: * or ? (any), n, a-b (range), a-b/s, */s, a/s (steps), comma lists.
Ranges: minute 0-59, hour 0-23, day-of-month 1-31, month 1-12 or JAN-DEC,
day-of-week 0-6 or SUN-SAT (0 = Sunday); names are case-insensitive.
When both day-of-month and day-of-week are restricted, either may match.
Not supported: L, W, # (last/nearest weekday/nth weekday), a year field,
macros such as @daily or @every, and TZ=/CRON_TZ= prefixes.
Timezone: required, an IANA name such as "Europe/Berlin" or "UTC".
Daylight saving: a time skipped by a spring-forward gap fires once, right
after the gap; a time repeated at fall-back fires once, the first time.
When the hour field names every hour ("*", "*/1", "0-23", "0/1"), schedules
follow real time instead: skipped times do not fire and repeated times fire
twice.`
