/**
 * `vulntrack vendors …`: the catalog's CNA-text aliases (docs/catalog.md, "From CNA text to vendor
 * keys"): learn the table from the catalog, see how a text maps, and the operator's own aliases and
 * vetoes. Declared as service commands (command.ts), so they also run inside a running server.
 */
import { vendorKey } from '../domain/cpe.ts';
import type { StoredOverride } from '../db/vendor-alias.repository.ts';
import type { OverrideAction } from '../domain/vendor-alias-overrides.ts';
import type { AliasTableStatus, TextExplanation } from '../services/vendor-alias.service.ts';
import { serviceCommand } from './command.ts';
import { EXIT, formatNumber, UsageError } from './output.ts';

/** `apache` or `apache:log4j` (a shell-friendly spelling of `apache$PRODUCT$log4j`). */
function keyArgument(typed: string): string {
  const i = typed.indexOf(':');
  if (i === 0 || i === typed.length - 1)
    throw new UsageError(`"${typed}" is not a key: write VENDOR or VENDOR:PRODUCT`);
  return i < 0 ? typed : vendorKey(typed.slice(0, i), typed.slice(i + 1));
}

const showKey = (key: string) => key.replace('$PRODUCT$', ':');

function statusLine(s: AliasTableStatus): string {
  const when = s.learnedAt ? ` on ${s.learnedAt.toISOString()}` : '';
  return (
    `alias table: ${s.origin === 'shipped' ? 'shipped with vulntrack (learned from the bundled sample)' : s.origin === 'learned' ? 'learned from this catalog' : 'none'}${when}, ` +
    `taught by ${formatNumber(s.learnedFrom)} records: ${formatNumber(s.vendorTexts)} vendor texts, ` +
    `${formatNumber(s.productTexts)} product texts, ${formatNumber(s.vendorKeys)} vendor keys, ` +
    `${formatNumber(s.productKeys)} product keys; ${formatNumber(s.overrides)} operator overrides`
  );
}

function overrideLine(o: StoredOverride): string {
  const text = o.productText === null ? `"${o.vendorText}"` : `"${o.vendorText}" / "${o.productText}"`;
  return `${o.action === 'add' ? 'alias' : 'veto '}  ${text} → ${showKey(o.key)}${o.createdBy ? `  (by ${o.createdBy})` : ''}`;
}

function explanationText(e: TextExplanation): string {
  const text = e.productText === undefined ? `"${e.vendorText}"` : `"${e.vendorText}" / "${e.productText}"`;
  const lines = [`${text}:`];
  if (e.evidence) {
    lines.push(`  learned from ${formatNumber(e.evidence.records)} records:`);
    for (const k of e.evidence.keys.slice(0, 10)) {
      lines.push(
        `    ${showKey(k.key)}  ${formatNumber(k.records)} records${k.confident ? '  (confident)' : ''}`,
      );
    }
  } else {
    lines.push('  never seen with CPEs in the catalog');
  }
  const mapped = [...e.mapped.vendors, ...e.mapped.products];
  lines.push(
    mapped.length
      ? `  maps to: ${mapped.map((k) => `${showKey(k)} (${ruleOf(e, k)})`).join(', ')}`
      : '  maps to nothing (a record naming it gets no key from this text)',
  );
  for (const o of e.overrides) lines.push(`  ${overrideLine(o)}`);
  return lines.join('\n');
}

function ruleOf(e: TextExplanation, key: string): string {
  const evidence = e.mapped.evidence[key];
  return evidence?.source === 'cna-text' ? evidence.rule : (evidence?.source ?? '?');
}

const learn = serviceCommand({
  name: 'vendors learn',
  description: 'learn the CNA-text alias table anew from the whole catalog',
  args: () => ({}),
  async run(services, _args, progress) {
    const report = await services.vendorAliases.learn((step) =>
      progress(
        'read' in step
          ? `vendors learn: ${formatNumber(step.read)} CVEs read`
          : `vendors learn: re-mapping the catalog: ${formatNumber(step.remap.examined)} of ${formatNumber(step.remap.total)} CVEs, ${formatNumber(step.remap.remapped)} with new keys`,
      ),
    );
    const remap = report.remap
      ? `\nre-mapped the catalog: ${formatNumber(report.remap.remapped)} of ${formatNumber(report.remap.examined)} CVEs got other keys, ${formatNumber(report.remap.changes)} changes recorded`
      : '';
    return {
      text: `${statusLine(report)} (${formatNumber(report.read)} CVEs read in ${(report.durationMs / 1000).toFixed(1)} s)${remap}`,
      data: report,
      exitCode: EXIT.ok,
    };
  },
});

const status = serviceCommand({
  name: 'vendors status',
  description: 'where the CNA-text alias table comes from and what it holds',
  args: () => ({}),
  async run(services) {
    const s = await services.vendorAliases.status();
    return { text: statusLine(s), data: s, exitCode: EXIT.ok };
  },
});

const show = serviceCommand({
  name: 'vendors alias show',
  description: 'what a CNA vendor (and product) text maps to, with the evidence',
  arguments: [{ name: '<vendor_text>', description: 'as a CNA writes it: "Palo Alto Networks"' }],
  options: [{ flags: '--product <product_text>', description: 'a product text of that vendor' }],
  args: (vendorText: string, o: { product?: string }) => ({ vendorText, productText: o.product }),
  async run(services, args) {
    const e = await services.vendorAliases.explain(args.vendorText, args.productText);
    return { text: explanationText(e), data: e, exitCode: EXIT.ok };
  },
});

const list = serviceCommand({
  name: 'vendors alias list',
  description: "the operator's aliases and vetoes",
  args: () => ({}),
  async run(services) {
    const overrides = await services.vendorAliases.listOverrides();
    return {
      text: overrides.length ? overrides.map(overrideLine).join('\n') : 'no aliases or vetoes',
      data: overrides,
      exitCode: EXIT.ok,
    };
  },
});

function overrideCommand(action: OverrideAction, description: string) {
  return serviceCommand({
    name: `vendors alias ${action}`,
    description,
    arguments: [
      { name: '<vendor_text>', description: 'as a CNA writes it: "Palo Alto Networks"' },
      { name: '<key>', description: 'VENDOR or VENDOR:PRODUCT, as CPE names spell them' },
    ],
    options: [
      {
        flags: '--product <product_text>',
        description: 'a product text of that vendor (for a VENDOR:PRODUCT key)',
      },
      { flags: '--by <name>', description: 'who the change is recorded as made by' },
    ],
    args: (vendorText: string, key: string, o: { product?: string; by?: string }) => ({
      vendorText,
      key: keyArgument(key),
      productText: o.product,
      by: o.by ?? null,
    }),
    async run(services, args) {
      const saved = await services.vendorAliases.setOverride(
        { vendorText: args.vendorText, productText: args.productText, key: args.key, action },
        { commandLine: args.by },
      );
      return {
        text: `${overrideLine(saved)}\nnew and changed records map with it; the server re-maps the catalog's CVEs with it (job vendors.remap)`,
        data: saved,
        exitCode: EXIT.ok,
      };
    },
  });
}

const remove = serviceCommand({
  name: 'vendors alias remove',
  description: "remove one of the operator's aliases or vetoes",
  arguments: [{ name: '<vendor_text>' }, { name: '<key>', description: 'VENDOR or VENDOR:PRODUCT' }],
  options: [{ flags: '--product <product_text>' }],
  args: (vendorText: string, key: string, o: { product?: string }) => ({
    vendorText,
    key: keyArgument(key),
    productText: o.product,
  }),
  async run(services, args) {
    await services.vendorAliases.removeOverride(args, { commandLine: null });
    return {
      text: `removed "${args.vendorText}" → ${showKey(args.key)}\nthe server re-maps the catalog's CVEs without it (job vendors.remap)`,
      data: { removed: true },
      exitCode: EXIT.ok,
    };
  },
});

export const VENDOR_COMMANDS = {
  vendorsLearn: learn,
  vendorsStatus: status,
  vendorsAliasShow: show,
  vendorsAliasList: list,
  vendorsAliasAdd: overrideCommand(
    'add',
    'give every record with this CNA text this key, whatever the evidence',
  ),
  vendorsAliasVeto: overrideCommand('veto', 'never give this key to a record for this CNA text'),
  vendorsAliasRemove: remove,
};
