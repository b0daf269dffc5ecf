/**
 * What "changed" means, said in the same words wherever a count of changed CVEs is shown (the
 * project dashboard, a report): one definition, so that two numbers that differ say why.
 */

/** The definition, and for a report what it leaves out besides. */
export function ChangedDefinition({ report = false }: { report?: boolean }) {
  return (
    <p class="muted small changed-definition">
      A CVE counts as changed when a change was recorded on it in the period (new, re-scored, added to KEV,
      new references…) while it is under this project's subscriptions, keywords or inventories, or when an
      inventory brought it in.
      {report &&
        ' A report counts only changes recorded since the project was created, and only the CVEs its automation’s conditions select: it can count fewer than the dashboard.'}
    </p>
  );
}
