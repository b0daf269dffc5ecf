// Statistics charts (filled in by the statistics page).
