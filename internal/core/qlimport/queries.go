package qlimport

// qTables lists the panel database's tables: which of the panel's
// versions wrote it is read from them, as the panel keeps no version.
const qTables = `SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`

// qColumns lists a table's columns, to refuse a database lacking one this
// reader needs before reading any row, and to read as NULL an optional
// one an older panel did not add.
const qColumns = `SELECT name FROM pragma_table_info(?)`
