/**
 * "Why is this CVE (not) in this project?" as the pages show it (`ProjectMatchService`): the matched
 * keys with the statement each came from, the matched keywords with where they matched, and when the
 * CVE entered the project; for a CVE outside the
 * project, why not, the keys it has and the nearest subscribed ones. Used by a project's CVE page
 * (one project, in full) and by the catalog CVE page (every project of the current organization).
 */
import { splitVendorKey } from '../../domain/cpe.ts';
import type { KeywordField } from '../../domain/keywords.ts';
import type { CveKey, KeySource, NearKey, ProjectMatch } from '../../domain/project-match.ts';
import { Time } from '../kit/fields.tsx';
import { providerName } from './cve/labels.tsx';
import { ComponentList } from './inventory-match.tsx';
import type { PageContext } from '../kit/context.ts';

/** `apache log4j` (a product) or `apache` (a vendor), as people read keys. */
export function KeyName({ k }: { k: { vendor: string; product?: string | undefined } }) {
  return k.product === undefined ? (
    <span class="match-key">
      <strong>{k.vendor}</strong> <span class="muted small">(vendor)</span>
    </span>
  ) : (
    <span class="match-key">
      <strong>
        {k.vendor} {k.product}
      </strong>{' '}
      <span class="muted small">(product)</span>
    </span>
  );
}

const splitKey = splitVendorKey;

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** Whose CPEs, as a reader names them. */
const CPE_OWNER: Record<string, string> = {
  'cpe:nvd': "NVD's CPE",
  'cpe:cna': "the CNA's own CPE",
  'cpe:adp': "an ADP's CPE",
  cpe: 'CPE',
};

/** How the alias table read the text. */
function RuleText({ source }: { source: Extract<KeySource, { via: 'cna_text' }> }) {
  switch (source.rule) {
    case 'alias':
      return (
        <>
          learned alias: {source.support} of {plural(source.records ?? 0, 'record')} naming this text had this
          key in their CPEs
        </>
      );
    case 'name':
      return <>spelled as a CPE names it</>;
    case 'spelling':
      return <>the product's name as this vendor's products are spelled</>;
    case 'description':
      return <>read in the description</>;
    case 'operator':
      return <>an operator's alias</>;
    case 'cna-name':
      return <>the CNA's own name, as no known key matched it</>;
    case undefined:
      return <>normalized, no CPE</>;
  }
}

function SourceText({ source }: { source: KeySource }) {
  const who = providerName(source.provider);
  switch (source.via) {
    case 'cpe':
      return (
        <>
          {who}: {CPE_OWNER[source.source] ?? 'CPE'} <code>{source.example}</code>
          {source.count > 1 && ` and ${source.count - 1} more`}
        </>
      );
    case 'cna_text':
      // The CNA's own name (`@intel`): the record names no vendor, and this CNA's such records did.
      if (source.vendor.startsWith('@'))
        return (
          <>
            {who}: the CNA “{source.vendor.slice(1)}” wrote it without naming a vendor (
            {source.rule === 'alias' ? (
              `${source.support} of its ${plural(source.records ?? 0, 'such record')} had this key in their CPEs`
            ) : (
              <RuleText source={source} />
            )}
            )
          </>
        );
      return (
        <>
          {who}: {source.rule === 'description' ? 'the words' : 'the affected product as written'}, “
          {source.vendor}”{source.product !== undefined && <> / “{source.product}”</>} (
          <RuleText source={source} />)
        </>
      );
    case 'stated':
      return <>{who}: listed by its statement</>;
  }
}

function Sources({ k }: { k: CveKey }) {
  if (!k.sources.length) return <span class="muted small">source not recorded</span>;
  return (
    <ul class="match-sources small">
      {k.sources.map((s) => (
        <li>
          <SourceText source={s} />
        </li>
      ))}
    </ul>
  );
}

/** Where a keyword matched, as people read it. */
const FIELD_TEXT: Record<KeywordField, string> = {
  vendor: 'a vendor name',
  product: 'a product name',
  title: 'the title',
  description: 'the description',
};

/** "the title and the description" */
function fieldsText(fields: readonly KeywordField[]): string {
  const words = fields.map((f) => FIELD_TEXT[f]);
  return words.length > 1 ? `${words.slice(0, -1).join(', ')} and ${words.at(-1)!}` : (words[0] ?? '');
}

/** The keywords the CVE matches, each with where. */
function KeywordList({ match }: { match: ProjectMatch }) {
  return (
    <ul class="match-keywords">
      {match.matchedKeywords.map((k) => (
        <li>
          the keyword <strong class="match-key">{k.keyword}</strong>, in {fieldsText(k.fields)}
        </li>
      ))}
    </ul>
  );
}

function Entered({ ctx, match }: { ctx: PageContext; match: ProjectMatch }) {
  const e = match.entered;
  if (!e) return null;
  if (e.cause === 'inventory' && e.component)
    return (
      <p class="match-entered">
        Entered the project <Time date={e.at} style={ctx.dateStyle} />, when it was found to affect{' '}
        <strong>
          {e.component.name} {e.component.version}
        </strong>{' '}
        of the inventory <strong>{e.component.inventory}</strong>.
      </p>
    );
  if (e.key === null)
    return (
      <p class="match-entered">
        Entered the project <Time date={e.at} style={ctx.dateStyle} />, through the keyword{' '}
        <strong>{e.keyword}</strong>.
      </p>
    );
  const k = splitKey(e.key);
  return (
    <p class="match-entered">
      Entered the project <Time date={e.at} style={ctx.dateStyle} />
      {e.cause === 'subscribed' && (
        <>
          , when the project subscribed to <KeyName k={k} />.
        </>
      )}
      {e.cause === 'cve_gained_key' && (
        <>
          , when a catalog update gave the CVE the key <KeyName k={k} />.
        </>
      )}
      {e.cause === 'published' && (
        <>
          : its publication; it had <KeyName k={k} /> before vulntrack recorded changes of it.
        </>
      )}
    </p>
  );
}

function NearText({ near }: { near: NearKey }) {
  const sub = splitKey(near.subscribed);
  const own = splitKey(near.cveKey);
  switch (near.relation) {
    case 'same_vendor':
      return (
        <>
          The project subscribes to <KeyName k={sub} />, another product of <strong>{own.vendor}</strong>;
          this CVE names other products of that vendor.
        </>
      );
    case 'same_product':
      return (
        <>
          The project subscribes to <KeyName k={sub} />; this CVE names a product of that name under another
          vendor, <KeyName k={own} /> (the sources spell the vendor differently).
        </>
      );
    case 'similar_vendor':
      return (
        <>
          The project subscribes to <KeyName k={sub} />, spelled like this CVE's vendor{' '}
          <strong>{own.vendor}</strong> but not the same key.
        </>
      );
  }
}

export function KeysTable({ keys }: { keys: CveKey[] }) {
  return (
    <div class="table-wrap">
      <table class="data match-keys">
        <thead>
          <tr>
            <th scope="col">Key</th>
            <th scope="col">From</th>
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => (
            <tr>
              <td>
                <KeyName k={k} />
              </td>
              <td>
                <Sources k={k} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Why not, in one sentence. */
function WhyNot({ match }: { match: ProjectMatch }) {
  switch (match.outcome) {
    case 'rejected':
      return (
        <p>
          This CVE was <strong>REJECTED</strong> by its CNA: rejected CVEs are never in a project, although
          the project subscribes to {match.matched.map((m, i) => [i > 0 && ', ', <KeyName k={m} />])}.
        </p>
      );
    case 'no_keys':
      return (
        <p>
          No vendor or product is known for this CVE yet: no source gave it a CPE, and its CNA named no
          vendor. A project hears of it once a source names one.
        </p>
      );
    case 'no_subscriptions':
      return <p>The project subscribes to no vendor or product yet, and watches no keyword.</p>;
    case 'no_subscribed_key':
      return (
        <p>
          {match.keys.length === 0
            ? 'It has no vendor or product key yet'
            : match.keys.length === 1
              ? 'Its only vendor or product key is not'
              : `None of its ${plural(match.keys.length, 'vendor and product key')} are`}
          {match.keys.length > 0 &&
            ` among the project's ${plural(match.subscriptionsCount, 'subscription')}`}
          {match.keywordsCount > 0 &&
            `, and none of the project's ${plural(match.keywordsCount, 'keyword')} is a whole word of its vendor and product names, title or description`}
          .
        </p>
      );
    case 'matched':
      return null;
  }
}

/** The whole answer for one project (a project's CVE page). */
export function MatchExplanation({
  ctx,
  match,
  catalogUrl,
}: {
  ctx: PageContext;
  match: ProjectMatch;
  catalogUrl: string;
}) {
  return (
    <section class="card match-panel" id="why" aria-labelledby="why-title">
      <h2 id="why-title">
        {match.inProject ? 'Why this CVE is in this project' : 'Why this CVE is not in this project'}
      </h2>
      {match.inProject ? (
        <>
          {match.matched.length > 0 && (
            <>
              <p>It carries {match.matched.length === 1 ? 'a key' : 'keys'} the project subscribes to:</p>
              <KeysTable keys={match.matched} />
            </>
          )}
          {match.matchedKeywords.length > 0 && (
            <>
              <p>
                It matches {match.matchedKeywords.length === 1 ? 'a keyword' : 'keywords'} the project
                watches:
              </p>
              <KeywordList match={match} />
            </>
          )}
          {(match.matchedComponents.length > 0 || match.resolvedBy.length > 0) && (
            <>
              {match.matchedComponents.length > 0 && (
                <p>
                  It affects {match.matchedComponents.length === 1 ? 'a component' : 'components'} of the
                  project&apos;s inventories, at the version listed:
                </p>
              )}
              <ComponentList match={match} />
            </>
          )}
          <Entered ctx={ctx} match={match} />
          {match.keys.length > match.matched.length && (
            <details class="small">
              <summary>All {match.keys.length} keys of this CVE</summary>
              <KeysTable keys={match.keys} />
            </details>
          )}
        </>
      ) : (
        <>
          <WhyNot match={match} />
          {match.near.length > 0 && (
            <>
              <h3>Nearest subscriptions</h3>
              <ul class="match-near">
                {match.near.map((n) => (
                  <li>
                    <NearText near={n} />
                  </li>
                ))}
              </ul>
            </>
          )}
          {match.keys.length > 0 && (
            <>
              <h3>The keys of this CVE</h3>
              <KeysTable keys={match.keys} />
              <p class="small">
                To follow this CVE, subscribe the project to {match.keys.length === 1 ? 'it' : 'one of them'}{' '}
                from the <a href={`${catalogUrl}#vendors`}>CVE's page</a>.
              </p>
            </>
          )}
        </>
      )}
      {match.retracted.length > 0 && (
        <details class="small match-retracted">
          <summary>
            {plural(match.retracted.length, 'key')} from the CNA's text that NVD's CPEs contradict (not this
            CVE's)
          </summary>
          <KeysTable keys={match.retracted} />
        </details>
      )}
    </section>
  );
}

/** Projects not listing the CVE beyond this many are folded (an organization may have dozens). */
const OTHERS_SHOWN = 3;

function ProjectCard({
  ctx,
  cveId,
  match: m,
  url,
}: {
  ctx: PageContext;
  cveId: string;
  match: ProjectMatch;
  url: string;
}) {
  return (
    <li class="card">
      <h3>
        <a href={url}>{m.project}</a>{' '}
        {m.inProject ? (
          <span class="badge ok">in the project</span>
        ) : (
          <span class="badge neutral">not in the project</span>
        )}
      </h3>
      {m.inProject ? (
        <>
          {m.matched.length > 0 && (
            <p class="small">
              Matched {m.matched.map((k, i) => [i > 0 && ', ', <KeyName k={k} />])}, from{' '}
              {[...new Set(m.matched.flatMap((k) => k.sources.map((s) => providerName(s.provider))))].join(
                ', ',
              ) || 'an unrecorded source'}
              .
            </p>
          )}
          {m.matchedKeywords.length > 0 && (
            <p class="small">
              Matched{' '}
              {m.matchedKeywords.map((k, i) => [
                i > 0 && ', ',
                <>
                  the keyword <strong>{k.keyword}</strong> in {fieldsText(k.fields)}
                </>,
              ])}
              .
            </p>
          )}
          {m.matchedComponents.length > 0 && (
            <p class="small">
              Affects{' '}
              {m.matchedComponents.map((c, i) => [
                i > 0 && ', ',
                <>
                  <strong>
                    {c.name} {c.version}
                  </strong>{' '}
                  of the inventory {c.inventory}
                </>,
              ])}
              .
            </p>
          )}
          <Entered ctx={ctx} match={m} />
        </>
      ) : (
        <>
          <WhyNot match={m} />
          {m.near[0] && (
            <p class="small">
              <NearText near={m.near[0]} />
            </p>
          )}
        </>
      )}
      <p class="small">
        <a href={`${url}#why`}>
          Why {m.inProject ? '' : 'not '}in {m.project}: the keys of {cveId} and their sources
        </a>
      </p>
    </li>
  );
}

/**
 * One card per project of the current organization (the catalog CVE page), those listing the CVE
 * first: in it (matched keys and when it entered) or not (why not, the nearest key), each linked to
 * the project's page of the CVE. More than OTHERS_SHOWN projects without it are folded.
 */
export function ProjectsPanel({
  ctx,
  org,
  cveId,
  matches,
  projectCveUrl,
}: {
  ctx: PageContext;
  org: string;
  cveId: string;
  matches: ProjectMatch[];
  projectCveUrl: (project: string) => string;
}) {
  const card = (m: ProjectMatch) => (
    <ProjectCard ctx={ctx} cveId={cveId} match={m} url={projectCveUrl(m.project)} />
  );
  const listing = matches.filter((m) => m.inProject);
  const others = matches.filter((m) => !m.inProject);
  return (
    <section id="projects" aria-labelledby="projects-title">
      <h2 id="projects-title">In the projects of {org}</h2>
      {matches.length === 0 && <p class="muted">{org} has no active project.</p>}
      {listing.length > 0 && <ul class="match-projects">{listing.map(card)}</ul>}
      {others.length > 0 &&
        (others.length > OTHERS_SHOWN ? (
          <details class="match-others">
            <summary>
              {others.length} projects do not list {cveId}: why not
            </summary>
            <ul class="match-projects">{others.map(card)}</ul>
          </details>
        ) : (
          <ul class="match-projects">{others.map(card)}</ul>
        ))}
    </section>
  );
}
