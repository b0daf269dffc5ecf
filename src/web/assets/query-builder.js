// The CVE list's query builder island (filled in by the CVE list page).
