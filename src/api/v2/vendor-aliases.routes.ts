/**
 * `/vendor-aliases`: how the catalog maps a CNA's vendor and product text to catalog keys (the learned
 * table, docs/catalog.md), and the operator's own aliases and vetoes. Reading takes `catalog:read`;
 * an alias or veto applies to every organization, so changing one also takes a write token created by
 * a server administrator.
 */
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services/services.ts';
import type { AliasTableStatus, TextExplanation } from '../../services/vendor-alias.service.ts';
import type { KeyEvidence } from '../../domain/vendor-aliases.ts';
import { authOf } from './auth.ts';
import { commonErrors, Timestamp, Uuid } from './schemas.ts';

const read = { auth: { scope: 'catalog:read', write: false } } as const;
const write = { auth: { scope: 'catalog:read', write: true } } as const;
const tags = ['vendor aliases'];

const Text = (description: string) => Type.String({ minLength: 1, maxLength: 200, description });
const Key = Type.String({
  minLength: 1,
  maxLength: 420,
  description: 'A catalog key: `vendor` or `vendor$PRODUCT$product`, as CPE names spell them.',
});

const Override = Type.Object({
  id: Uuid,
  vendor: Type.String(),
  product: Type.Union([Type.String(), Type.Null()]),
  key: Type.String(),
  action: Type.Union([Type.Literal('add'), Type.Literal('veto')]),
  created_by: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
});

const Status = Type.Object({
  origin: Type.Union([Type.Literal('shipped'), Type.Literal('learned'), Type.Literal('none')], {
    description: '`shipped`: learned from the bundled sample; `learned`: from this catalog.',
  }),
  learned_from: Type.Integer({ description: 'Records that taught the table.' }),
  learned_at: Type.Union([Timestamp, Type.Null()]),
  vendor_texts: Type.Integer(),
  product_texts: Type.Integer(),
  vendor_keys: Type.Integer(),
  product_keys: Type.Integer(),
  overrides: Type.Array(Override),
});

const MappedKey = Type.Object({
  key: Type.String(),
  source: Type.String({ description: "`cna-text` (or `cpe:cna` for the CNA's own CPEs)." }),
  rule: Type.Union([Type.String(), Type.Null()], {
    description: '`alias` (learned, with its evidence), `name` (spelled like a known key), `operator`.',
  }),
  support: Type.Union([Type.Integer(), Type.Null()], { description: 'Learning records naming this key.' }),
  records: Type.Union([Type.Integer(), Type.Null()], { description: 'Learning records with this text.' }),
});

const Explanation = Type.Object({
  vendor: Type.String(),
  product: Type.Union([Type.String(), Type.Null()]),
  evidence: Type.Union([
    Type.Object({
      records: Type.Integer(),
      keys: Type.Array(
        Type.Object({ key: Type.String(), records: Type.Integer(), confident: Type.Boolean() }),
      ),
    }),
    Type.Null(),
  ]),
  keys: Type.Array(MappedKey),
  overrides: Type.Array(Override),
});

type StoredOverride = Awaited<ReturnType<Services['vendorAliases']['listOverrides']>>[number];

const overrideItem = (o: StoredOverride) => ({
  id: o.id,
  vendor: o.vendorText,
  product: o.productText,
  key: o.key,
  action: o.action,
  created_by: o.createdBy,
  created_at: o.createdAt.toISOString(),
});

const statusItem = (s: AliasTableStatus, overrides: StoredOverride[]) => ({
  origin: s.origin,
  learned_from: s.learnedFrom,
  learned_at: s.learnedAt?.toISOString() ?? null,
  vendor_texts: s.vendorTexts,
  product_texts: s.productTexts,
  vendor_keys: s.vendorKeys,
  product_keys: s.productKeys,
  overrides: overrides.map(overrideItem),
});

const mappedKey = (key: string, evidence: KeyEvidence | undefined) => ({
  key,
  source: evidence?.source ?? 'cna-text',
  rule: evidence?.source === 'cna-text' ? evidence.rule : null,
  support: evidence?.source === 'cna-text' && evidence.rule === 'alias' ? evidence.support : null,
  records: evidence?.source === 'cna-text' && evidence.rule === 'alias' ? evidence.records : null,
});

const explanationItem = (e: TextExplanation) => ({
  vendor: e.vendorText,
  product: e.productText ?? null,
  evidence: e.evidence,
  keys: [...e.mapped.vendors, ...e.mapped.products].map((k) => mappedKey(k, e.mapped.evidence[k])),
  overrides: e.overrides.map(overrideItem),
});

export const vendorAliasRoutes: FastifyPluginAsyncTypebox<{
  services: Pick<Services, 'vendorAliases'>;
}> = async (app, { services }) => {
  const { vendorAliases } = services;

  app.get(
    '/vendor-aliases',
    {
      config: read,
      schema: {
        tags,
        summary: "The alias table: where it comes from, its size, and the operator's aliases and vetoes",
        response: { 200: Status, ...commonErrors },
      },
    },
    async () => {
      const { status, overrides } = await vendorAliases.overview();
      return statusItem(status, overrides);
    },
  );

  app.get(
    '/vendor-aliases/explain',
    {
      config: read,
      schema: {
        tags,
        summary: 'What a CNA vendor (and product) text maps to, with the learned evidence',
        querystring: Type.Object(
          {
            vendor: Text('The vendor text, as a CNA writes it.'),
            product: Type.Optional(Text('A product text.')),
          },
          { additionalProperties: false },
        ),
        response: { 200: Explanation, ...commonErrors },
      },
    },
    async (request) =>
      explanationItem(await vendorAliases.explain(request.query.vendor, request.query.product)),
  );

  app.post(
    '/vendor-aliases/overrides',
    {
      config: write,
      schema: {
        tags,
        summary:
          'Add an alias (`add`) or a veto (`veto`) of a CNA text → key mapping (server administrators)',
        body: Type.Object(
          {
            vendor: Text('The vendor text, as a CNA writes it.'),
            product: Type.Optional(Text('A product text, for a product key.')),
            key: Key,
            action: Type.Union([Type.Literal('add'), Type.Literal('veto')]),
          },
          { additionalProperties: false },
        ),
        response: { 201: Override, ...commonErrors },
      },
    },
    async (request, reply) => {
      const { vendor, product, key, action } = request.body;
      const saved = await vendorAliases.setOverride(
        { vendorText: vendor, productText: product, key, action },
        { apiToken: authOf(request).id },
      );
      return reply.status(201).send(overrideItem(saved));
    },
  );

  app.delete(
    '/vendor-aliases/overrides',
    {
      config: write,
      schema: {
        tags,
        summary: 'Remove an alias or a veto (server administrators)',
        querystring: Type.Object(
          { vendor: Text('The vendor text.'), product: Type.Optional(Text('The product text.')), key: Key },
          { additionalProperties: false },
        ),
        response: { 204: Type.Null({ description: 'Removed.' }), ...commonErrors },
      },
    },
    async (request, reply) => {
      const { vendor, product, key } = request.query;
      await vendorAliases.removeOverride(
        { vendorText: vendor, productText: product, key },
        { apiToken: authOf(request).id },
      );
      return reply.status(204).send(null);
    },
  );
};
