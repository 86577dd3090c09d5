package cron

// Edge devices often ship without /usr/share/zoneinfo, and a mandatory IANA
// timezone that fails to load there would make every trigger unusable. The
// embedded copy costs about 410 KB of binary and is only consulted when the
// system database is missing.
import _ "time/tzdata"
