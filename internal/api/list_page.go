package api

// The paging of ListBackups, ListExports and ListImports: each lists its
// records in a fixed order, resumes after the record its request names
// (ExclusiveStartBackupArn, or the ARN its NextToken holds) and names the
// last record of a page that has more after it. ListBackups and ListImports
// resume with startAfter, so a start that names no record gives an empty
// page; ListExports, newest first, resumes at the first ARN smaller than
// its token's, whether or not that export still exists.

// startAfter returns the records of all that follow the one whose key is
// start: all of them when start is "", none when no record has that key.
func startAfter[X any](all []X, start string, key func(X) string) []X {
	if start == "" {
		return all
	}
	for i, x := range all {
		if key(x) == start {
			return all[i+1:]
		}
	}
	return nil
}

// listPage summarises, in order, the records of xs that keep accepts, at
// most limit of them (at least 1); more says whether an accepted record was
// left for the next page. The page is never nil, so that it is sent as [].
func listPage[X, S any](xs []X, keep func(X) bool, limit int, summary func(X) S) (page []S, more bool) {
	page = []S{}
	for _, x := range xs {
		if !keep(x) {
			continue
		}
		if len(page) == limit {
			return page, true
		}
		page = append(page, summary(x))
	}
	return page, false
}

// pageSize is a request's page size member, or def without it.
func pageSize(n *int64, def int) int {
	if n == nil {
		return def
	}
	return int(*n)
}
