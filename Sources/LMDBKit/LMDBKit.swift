// LMDBKit: safe Swift over liblmdb.
