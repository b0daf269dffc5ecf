/**
 * What a CVE record states is affected, as a table: one row per `affected[]` entry of the CNA's and
 * each ADP's container (source, vendor and product, versions and ranges in plain words with their
 * status, the default status), and a container's CVE 5.1 `cpeApplicability` as NVD's tree.
 */
import {
  versionSpans,
  type AffectedEntry,
  type AffectedSource,
  type AffectedVersion,
} from '../../../domain/affected.ts';
import type { NvdConfiguration } from '../../../domain/cve.ts';
import { Configurations } from './configurations.tsx';

/** NVD's configurations are shown unfolded up to this many CPE matches (Log4Shell's name hundreds). */
const CONFIGURATION_MATCHES_SHOWN = 12;

/** How many version statements an entry shows before folding the rest (a kernel record lists dozens). */
const VERSIONS_SHOWN = 8;

const STATUS_CLASS: Record<string, string> = {
  affected: 'badge sev-high',
  unaffected: 'badge ok',
};

export function StatusBadge({ status }: { status: string }) {
  return <span class={STATUS_CLASS[status] ?? 'badge neutral'}>{status}</span>;
}

/** `CNA (apache)`, `ADP (CISA-ADP)`. */
export const sourceLabel = (s: Pick<AffectedSource, 'source' | 'provider'>): string =>
  `${s.source === 'cna' ? 'CNA' : 'ADP'}${s.provider ? ` (${s.provider})` : ''}`;

function VersionLine({ v }: { v: AffectedVersion }) {
  // `custom` says nothing a reader can use; `git`, `semver`, `rpm`… say how to read the versions.
  const type = v.versionType && v.versionType !== 'custom' ? v.versionType : undefined;
  return (
    <>
      {versionSpans(v).map((span, i) => (
        <li>
          <StatusBadge status={span.status} /> {span.text}
          {type && i === 0 && <span class="muted small"> ({type})</span>}
        </li>
      ))}
    </>
  );
}

function Versions({ entry }: { entry: AffectedEntry }) {
  if (!entry.versions.length) return <span class="muted">no version named</span>;
  const shown = entry.versions.slice(0, VERSIONS_SHOWN);
  const rest = entry.versions.slice(VERSIONS_SHOWN);
  return (
    <>
      <ul class="affected-versions">
        {shown.map((v) => (
          <VersionLine v={v} />
        ))}
      </ul>
      {rest.length > 0 && (
        <details>
          <summary>{rest.length} more</summary>
          <ul class="affected-versions">
            {rest.map((v) => (
              <VersionLine v={v} />
            ))}
          </ul>
        </details>
      )}
    </>
  );
}

function Product({ entry }: { entry: AffectedEntry }) {
  return (
    <>
      <strong>{[entry.vendor, entry.product].filter(Boolean).join(' · ') || 'not named'}</strong>
      {entry.platforms && <div class="muted small">Platforms: {entry.platforms.join(', ')}</div>}
      {(entry.packageURL ?? entry.packageName) && (
        <div class="muted small">
          Package: <code>{entry.packageURL ?? entry.packageName}</code>
        </div>
      )}
      {entry.cpes && (
        <div class="muted small affected-cpes">
          {entry.cpes.map((c) => (
            <code>{c}</code>
          ))}
        </div>
      )}
    </>
  );
}

/** One container's entries as a table (one row per entry), then its CPE applicability. */
export function AffectedTable({ source }: { source: AffectedSource }) {
  return (
    <>
      {source.entries.length > 0 && (
        <div class="table-wrap">
          <table class="data affected">
            <thead>
              <tr>
                <th scope="col">Vendor · product</th>
                <th scope="col">Versions</th>
                <th scope="col">Default status</th>
              </tr>
            </thead>
            <tbody>
              {source.entries.map((entry) => (
                <tr>
                  <td>
                    <Product entry={entry} />
                  </td>
                  <td data-label="Versions">
                    <Versions entry={entry} />
                  </td>
                  <td data-label="Default status">
                    {entry.defaultStatus ? (
                      <StatusBadge status={entry.defaultStatus} />
                    ) : (
                      <span class="muted">not stated</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {source.cpeApplicability?.length ? (
        <>
          <p class="muted small">CPE applicability:</p>
          <Configurations configurations={source.cpeApplicability} />
        </>
      ) : null}
    </>
  );
}

const entriesText = (s: AffectedSource) =>
  `${s.entries.length} entr${s.entries.length === 1 ? 'y' : 'ies'}${s.entries.some((e) => e.cpes) ? ' with CPEs' : ''}`;

/**
 * Each container under its name: the CNA's open, an ADP's folded when the CNA states entries (CISA-ADP
 * mostly restates them with CPEs: eleven rows for the Linux kernel's two).
 */
function Containers({ affected }: { affected: readonly AffectedSource[] }) {
  const cnaStates = affected.some((s) => s.source === 'cna' && s.entries.length);
  return (
    <>
      {affected.map((s) =>
        s.source === 'adp' && cnaStates ? (
          <details class="affected-source" data-source={s.source}>
            <summary>
              <strong>{sourceLabel(s)}</strong> <span class="muted">{entriesText(s)}</span>
            </summary>
            <AffectedTable source={s} />
          </details>
        ) : (
          <div class="affected-source" data-source={s.source}>
            <h3>{sourceLabel(s)}</h3>
            <AffectedTable source={s} />
          </div>
        ),
      )}
    </>
  );
}

/**
 * The section of a CVE page: the record's affected table, then NVD's configurations beside it
 * (folded when long, more than CONFIGURATION_MATCHES_SHOWN CPE matches, or with `foldConfigurations`,
 * for a page where they are not the point), so the description below stays near the top.
 */
export function AffectedSection({
  affected,
  configurations,
  foldConfigurations = false,
}: {
  affected: readonly AffectedSource[];
  configurations: readonly NvdConfiguration[];
  foldConfigurations?: boolean;
}) {
  const matches = configurations.reduce(
    (n, c) => n + c.nodes.reduce((m, node) => m + node.cpeMatch.length, 0),
    0,
  );
  const tree = (
    <>
      <p class="muted small">The CVE applies where a configuration's conditions all hold.</p>
      <Configurations configurations={[...configurations]} />
    </>
  );
  const any = affected.some((s) => s.entries.length || s.cpeApplicability?.length);
  return (
    <section id="affected" aria-labelledby="affected-title">
      <h2 id="affected-title">Affected products and versions</h2>
      {any ? (
        <>
          <p class="muted small">As the CVE record states them: its CNA, then each ADP.</p>
          <Containers affected={affected} />
        </>
      ) : (
        <p class="muted">The CVE record names no affected product.</p>
      )}
      <div id="configurations">
        <h3>NVD's configurations</h3>
        {configurations.length === 0 ? (
          <p class="muted">NVD states no CPE configuration for this CVE.</p>
        ) : foldConfigurations || matches > CONFIGURATION_MATCHES_SHOWN ? (
          <details>
            <summary>
              {configurations.length} configuration{configurations.length === 1 ? '' : 's'}, {matches} CPE
              match{matches === 1 ? '' : 'es'}
            </summary>
            {tree}
          </details>
        ) : (
          tree
        )}
      </div>
    </section>
  );
}
