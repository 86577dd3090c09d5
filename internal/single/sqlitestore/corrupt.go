package sqlitestore

// noteCorrupt keeps the first error that says the file is corrupt
// (SQLITE_CORRUPT, SQLITE_NOTADB) and returns err as it is. Such an error
// is no passing failure: the pages it read stay corrupt, and a server that
// kept going would admit and start commands whose results it may not be
// able to record, so it holds its work once Corrupt reports one (see the
// single-node server's corruption hold). Every write passes here, and the
// read transactions; a read outside one that meets a corrupt page fails
// on its own, and the next write or read transaction on that page notes
// it.
func (s *Store) noteCorrupt(err error) error {
	if err != nil && isNotADatabase(err) {
		s.corruptErr.CompareAndSwap(nil, &err)
	}
	return err
}

// Corrupt is the first corruption error the store met since it was
// opened, nil while it met none.
func (s *Store) Corrupt() error {
	if p := s.corruptErr.Load(); p != nil {
		return *p
	}
	return nil
}
