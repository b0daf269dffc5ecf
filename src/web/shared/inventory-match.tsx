/** "Why this CVE is in this project", its inventory part: the components it affects, the uploads that resolved it. */
import { changesText } from '../../domain/inventory.ts';
import type { ProjectMatch } from '../../domain/project-match.ts';

export function ComponentList({ match }: { match: ProjectMatch }) {
  return (
    <>
      {match.matchedComponents.length > 0 && (
        <ul class="match-components">
          {match.matchedComponents.map((c) => (
            <li>
              <strong class="match-key">
                {c.name} {c.version}
              </strong>{' '}
              of the inventory <strong>{c.inventory}</strong>
              {c.purl && <span class="mono small"> ({c.purl})</span>}
            </li>
          ))}
        </ul>
      )}
      {match.resolvedBy.map((r) => (
        <p class="small">
          Resolved by the inventory <strong>{r.inventory}</strong>: {changesText(r.changes)}.
        </p>
      ))}
    </>
  );
}
