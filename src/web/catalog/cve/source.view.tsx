/** One provider's record of a CVE: the fragment a CVE page's "Raw record" loads, and its own page. */
import { Time } from '../../kit/fields.tsx';
import { Layout } from '../../kit/layout.tsx';
import type { PageContext } from '../../kit/context.ts';
import { PROVIDER_LABELS, providerName } from '../../shared/cve/labels.tsx';
import { cvePath } from './cve-url.ts';

/** A provider's statement pretty-printed: the upstream record when kept, and the normalized statement. */
export function RawRecord({ record }: { record: { provider: string; data: unknown; raw: unknown } }) {
  return (
    <div class="raw-record-body">
      {record.raw !== null && record.raw !== undefined && (
        <>
          <p class="small">
            <strong>Upstream record</strong>
          </p>
          <pre class="raw-json">{JSON.stringify(record.raw, null, 2)}</pre>
        </>
      )}
      <p class="small">
        <strong>Statement as vulntrack normalized it</strong>
      </p>
      <pre class="raw-json">{JSON.stringify(record.data, null, 2)}</pre>
    </div>
  );
}

/** One provider's record of a CVE on its own page (without JavaScript). */
export function SourcePage({
  ctx,
  cveId,
  record,
}: {
  ctx: PageContext;
  cveId: string;
  record: { provider: string; data: unknown; raw: unknown; updated_at: Date };
}) {
  const name = providerName(record.provider);
  return (
    <Layout ctx={ctx} title={`${cveId}: ${name}`} section="cves">
      <div class="crumbs">
        <a href="/cves">CVEs</a> / <a href={cvePath(cveId)}>{cveId}</a> /{' '}
        <a href={`${cvePath(cveId)}#sources`}>Sources</a>
      </div>
      <h1>
        {cveId}: {name}
      </h1>
      <p class="muted small">
        {PROVIDER_LABELS[record.provider]?.about} Last written{' '}
        <Time date={record.updated_at} style={ctx.dateStyle} />.
      </p>
      <RawRecord record={record} />
    </Layout>
  );
}
