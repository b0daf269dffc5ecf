/** NVD's configurations of a CVE as a readable AND/OR tree over CPE matches. */
import type { NvdConfiguration } from '../../../domain/cve.ts';
import { parseCpe } from '../../../domain/cpe.ts';

/** `from 2.0 (including) up to 2.15.0 (excluding)`, or `all versions` / the CPE's own version. */
function versionRange(m: NvdConfiguration['nodes'][number]['cpeMatch'][number]): string {
  const parts: string[] = [];
  if (m.versionStartIncluding) parts.push(`from ${m.versionStartIncluding} (including)`);
  if (m.versionStartExcluding) parts.push(`from ${m.versionStartExcluding} (excluding)`);
  if (m.versionEndIncluding) parts.push(`up to ${m.versionEndIncluding} (including)`);
  if (m.versionEndExcluding) parts.push(`up to ${m.versionEndExcluding} (excluding)`);
  if (parts.length) return parts.join(' ');
  const version = parseCpe(m.criteria)?.version;
  return !version || version === '*' ? 'all versions' : version === '-' ? 'no version' : `version ${version}`;
}

const PART: Record<string, string> = { a: 'application', o: 'operating system', h: 'hardware' };

function CpeMatch({ m }: { m: NvdConfiguration['nodes'][number]['cpeMatch'][number] }) {
  const cpe = parseCpe(m.criteria);
  return (
    <li>
      {m.vulnerable ? (
        <span class="badge sev-high">vulnerable</span>
      ) : (
        <span class="badge neutral">running on / with</span>
      )}{' '}
      {cpe ? (
        <>
          <strong>
            {cpe.vendor} {cpe.product}
          </strong>{' '}
          <span class="muted small">{PART[cpe.part] ?? cpe.part}</span> {versionRange(m)}
        </>
      ) : (
        versionRange(m)
      )}
      <div class="small muted">
        <code>{m.criteria}</code>
      </div>
    </li>
  );
}

const operatorText = (op: string | undefined, negate: boolean | undefined) =>
  `${negate ? 'NOT ' : ''}${op === 'AND' ? 'all of' : 'any of'}`;

/** NVD's configurations: each one a tree of nodes (AND/OR) over CPE matches, read top-down. */
export function Configurations({ configurations }: { configurations: NvdConfiguration[] }) {
  return (
    <ol class="configurations">
      {configurations.map((config, i) => (
        <li class="card">
          <h3>
            Configuration {i + 1}
            {config.nodes.length > 1 && (
              <span class="muted small">
                {' '}
                · {operatorText(config.operator ?? 'OR', config.negate)} these groups
              </span>
            )}
          </h3>
          <ul class="config-nodes">
            {config.nodes.map((node) => (
              <li>
                <span class="config-op">{operatorText(node.operator, node.negate)}:</span>
                <ul class="config-matches">
                  {node.cpeMatch.map((m) => (
                    <CpeMatch m={m} />
                  ))}
                </ul>
              </li>
            ))}
          </ul>
        </li>
      ))}
    </ol>
  );
}
